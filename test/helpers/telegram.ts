/**
 * A Telegram Bot API server on loopback (port 0) for receiver tests, written from the Bot API's
 * documentation (https://core.telegram.org/bots/api): `POST /bot<token>/sendMessage` with a JSON
 * body; answers `{ok: true, result: Message}` or `{ok: false, error_code, description,
 * parameters?}`. It checks what the real one checks: the token, the request's shape, the chat, the
 * text's encoding (UTF-8: no lone surrogate), the HTML (only the documented tags and entities;
 * anything else is "can't parse entities") and the 4,096-character limit on the text after entity
 * parsing.
 */
import { startCapture, type Answer, type Captured } from './capture.js';

export interface SentMessage {
  chatId: number | string;
  threadId?: number;
  /** The text as Telegram shows it: tags removed, entities decoded. */
  text: string;
  html: string;
  /** `HTML`, or undefined for plain text. */
  parseMode?: string;
  replyTo?: { message_id: number; allow_sending_without_reply?: boolean };
  messageId: number;
  at: number;
}

const fail = (status: number, description: string, parameters?: Record<string, number>): Answer => ({
  status,
  body: JSON.stringify({ ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) }),
});

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const TAGS = /^<(\/?)(b|strong|i|em|u|ins|s|strike|del|code|pre|blockquote|tg-spoiler|a)(\s+href="[^"<>]*")?>/;
const ENTITY = /^&(lt|gt|amp|quot|#\d+|#x[0-9a-fA-F]+);/;
const DECODED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

/** Telegram's HTML parse mode: the shown text, or the error it answers with. */
export function parseTelegramHtml(html: string): { text: string } | { error: string } {
  let text = '';
  const open: string[] = [];
  for (let i = 0; i < html.length; ) {
    const rest = html.slice(i);
    if (html[i] === '<') {
      const tag = TAGS.exec(rest);
      if (!tag || (tag[2] === 'a' && !tag[1] && !tag[3])) return { error: `Bad Request: can't parse entities: unsupported start tag at byte offset ${i}` };
      if (tag[1]) {
        if (open.pop() !== tag[2]) return { error: `Bad Request: can't parse entities: unmatched end tag at byte offset ${i}` };
      } else open.push(tag[2]!);
      i += tag[0].length;
    } else if (html[i] === '&') {
      const entity = ENTITY.exec(rest);
      if (!entity) return { error: `Bad Request: can't parse entities: unsupported entity at byte offset ${i}` };
      const name = entity[1]!;
      text += DECODED[name] ?? String.fromCodePoint(name.startsWith('#x') ? parseInt(name.slice(2), 16) : Number(name.slice(1)));
      i += entity[0].length;
    } else if (html[i] === '>') {
      return { error: `Bad Request: can't parse entities: unexpected ">" at byte offset ${i}` };
    } else {
      text += html[i];
      i++;
    }
  }
  if (open.length > 0) return { error: `Bad Request: can't parse entities: can't find end tag corresponding to start tag "${open.at(-1)}"` };
  return { text };
}

export interface FakeBotApiOptions {
  token: string;
  /** Chats that exist (numeric IDs as strings, or @usernames); others are "chat not found". */
  chats: string[];
  /** Chats whose user blocked the bot. */
  blocked?: string[];
  /**
   * Refuse every message with a parse mode, with this description (a 400), as a server that cannot
   * parse what it was sent would: "Bad Request: can't parse entities: …". Settable while it runs.
   */
  refuseMarkup?: string;
  /** The bot's username (getMe). */
  username?: string;
}

/** What a user writes to the bot: a message in a chat, by a user, maybe a reply to one of the bot's messages. */
export interface IncomingMessage {
  chatId: number;
  userId: number;
  text: string;
  username?: string;
  threadId?: number;
  /** The bot's message this one replies to (its text comes along, as Telegram sends it). */
  replyTo?: number;
}

/** A getUpdates long poll held open until an update comes or its timeout passes. */
interface Waiter {
  offset: number;
  limit: number;
  answer: (a: Answer) => void;
  timer: NodeJS.Timeout;
}

export async function startBotApi(options: FakeBotApiOptions) {
  const sent: SentMessage[] = [];
  const errors: Array<{ path: string; status: number; description: string }> = [];
  /** Answers the next requests with 429 and this retry_after (seconds), once per entry. */
  const throttle: number[] = [];
  let nextId = 100;

  const answer = (req: Captured): Answer => {
    const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.path);
    if (!m) return fail(404, 'Not Found');
    if (m[1] !== options.token) return fail(401, 'Unauthorized');
    if (m[2] !== 'sendMessage') return fail(404, 'Not Found: method not found');
    if (!String(req.headers['content-type']).startsWith('application/json')) return fail(400, 'Bad Request: message text is empty');
    const body = req.json as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object') return fail(400, 'Bad Request: message text is empty');
    const chatId = body.chat_id;
    if (!(typeof chatId === 'number' && Number.isSafeInteger(chatId)) && !(typeof chatId === 'string' && /^(@\w+|-?\d+)$/.test(chatId))) return fail(400, 'Bad Request: chat_id is empty');
    if (typeof body.text !== 'string' || body.text === '') return fail(400, 'Bad Request: message text is empty');
    // Telegram wants UTF-8: a lone surrogate (half an emoji, escaped as \ud83d in the JSON) is not text.
    if (!req.utf8 || LONE_SURROGATE.test(body.text)) return fail(400, 'Bad Request: text must be encoded in UTF-8');
    if (body.parse_mode !== undefined && body.parse_mode !== 'HTML' && body.parse_mode !== 'MarkdownV2') return fail(400, `Bad Request: unsupported parse_mode "${String(body.parse_mode)}"`);
    if (body.message_thread_id !== undefined && !Number.isSafeInteger(body.message_thread_id)) return fail(400, 'Bad Request: message thread not found');
    const reply = body.reply_parameters as SentMessage['replyTo'] | undefined;
    if (reply !== undefined && !Number.isSafeInteger(reply?.message_id)) return fail(400, 'Bad Request: reply parameters are invalid');
    if (!options.chats.includes(String(chatId)) && !options.blocked?.includes(String(chatId))) return fail(400, 'Bad Request: chat not found');
    if (options.blocked?.includes(String(chatId))) return fail(403, 'Forbidden: bot was blocked by the user');
    if (options.refuseMarkup !== undefined && body.parse_mode !== undefined) return fail(400, options.refuseMarkup);
    const parsed = body.parse_mode === 'HTML' ? parseTelegramHtml(body.text) : { text: body.text };
    if ('error' in parsed) return fail(400, parsed.error);
    if (parsed.text.length > 4096) return fail(400, 'Bad Request: message is too long');
    const retryAfter = throttle.shift();
    if (retryAfter !== undefined) return fail(429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter });
    if (reply && !sent.some((s) => s.messageId === reply.message_id) && !reply.allow_sending_without_reply) return fail(400, 'Bad Request: message to be replied not found');
    const message: SentMessage = {
      chatId,
      text: parsed.text,
      html: body.text,
      ...(typeof body.parse_mode === 'string' ? { parseMode: body.parse_mode } : {}),
      messageId: nextId++,
      at: Date.now(),
      ...(typeof body.message_thread_id === 'number' ? { threadId: body.message_thread_id } : {}),
      ...(reply ? { replyTo: reply } : {}),
    };
    sent.push(message);
    return { status: 200, body: JSON.stringify({ ok: true, result: { message_id: message.messageId, date: Math.floor(message.at / 1000), chat: { id: chatId }, text: message.text } }) };
  };

  // getUpdates and getMe (https://core.telegram.org/bots/api#getupdates): updates are kept until a
  // getUpdates with a higher offset confirms them; a second getUpdates while one is held open ends
  // the first with 409 Conflict, as Telegram does.
  const updates: Array<{ update_id: number; message: Record<string, unknown> }> = [];
  let nextUpdateId = 5000;
  let waiter: Waiter | undefined;
  const pending = (offset: number, limit: number) => updates.filter((u) => u.update_id >= offset).slice(0, limit);
  const ok = (result: unknown): Answer => ({ status: 200, body: JSON.stringify({ ok: true, result }) });
  const wake = () => {
    if (!waiter) return;
    const found = pending(waiter.offset, waiter.limit);
    if (found.length === 0) return;
    clearTimeout(waiter.timer);
    const { answer: reply } = waiter;
    waiter = undefined;
    reply(ok(found));
  };
  const poll = (req: Captured): Answer | Promise<Answer> => {
    const body = (req.json ?? {}) as { offset?: unknown; limit?: unknown; timeout?: unknown; allowed_updates?: unknown };
    const offset = body.offset ?? 0;
    const limit = body.limit ?? 100;
    const timeout = body.timeout ?? 0;
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(limit) || (limit as number) < 1 || (limit as number) > 100 || !Number.isSafeInteger(timeout) || (timeout as number) < 0) return fail(400, 'Bad Request: wrong parameters');
    // a higher offset confirms the updates before it
    for (let i = updates.length - 1; i >= 0; i--) if (updates[i]!.update_id < (offset as number)) updates.splice(i, 1);
    if (waiter) {
      clearTimeout(waiter.timer);
      waiter.answer(fail(409, 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running'));
      waiter = undefined;
    }
    const found = pending(offset as number, limit as number);
    if (found.length > 0 || timeout === 0) return ok(found);
    return new Promise<Answer>((resolve) => {
      const timer = setTimeout(() => {
        waiter = undefined;
        resolve(ok([]));
      }, (timeout as number) * 1000);
      waiter = { offset: offset as number, limit: limit as number, answer: resolve, timer };
    });
  };
  let nextIncomingId = 1;
  /** A user writes to the bot. */
  const userSays = (m: IncomingMessage) => {
    const replied = m.replyTo !== undefined ? sent.find((s) => s.messageId === m.replyTo) : undefined;
    updates.push({
      update_id: nextUpdateId++,
      message: {
        message_id: nextIncomingId++,
        date: Math.floor(Date.now() / 1000),
        chat: { id: m.chatId, type: m.chatId < 0 ? 'supergroup' : 'private' },
        from: { id: m.userId, is_bot: false, first_name: 'On', ...(m.username ? { username: m.username } : {}) },
        text: m.text,
        ...(m.threadId !== undefined ? { message_thread_id: m.threadId, is_topic_message: true } : {}),
        ...(replied ? { reply_to_message: { message_id: replied.messageId, chat: { id: m.chatId }, from: { id: 1, is_bot: true }, text: replied.text } } : {}),
      },
    });
    wake();
  };

  const server = await startCapture((req) => {
    const m = /^\/bot([^/]+)\/(getUpdates|getMe)$/.exec(req.path);
    const a = m && m[1] === options.token ? (m[2] === 'getMe' ? ok({ id: Number(options.token.split(':')[0]), is_bot: true, first_name: 'avahealth', username: options.username ?? 'avahealth_test_bot' }) : poll(req)) : answer(req);
    const record = (settled: Answer) => {
      if (settled.status !== 200) errors.push({ path: req.path, status: settled.status, description: (JSON.parse(settled.body!) as { description: string }).description });
      return settled;
    };
    return a instanceof Promise ? a.then(record) : record(a);
  });
  const close = async () => {
    if (waiter) {
      clearTimeout(waiter.timer);
      waiter.answer(ok([]));
      waiter = undefined;
    }
    await server.close();
  };
  return { ...server, close, sent, errors, throttle, options, userSays, updates };
}
