import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batch, notice } from '../../../../test/helpers/notices.js';
import { sendWith } from '../../../../test/helpers/receivers.js';
import { parseTelegramHtml, startBotApi } from '../../../../test/helpers/telegram.js';
import { notesFile, ReceiverNotes } from '../notes.js';
import { send } from '../index.js';
import { poster } from '../post.js';
import { DeliveryError } from '../receiver.js';
import { HttpClient } from '../../../transport/client.js';
import { receiverSchema } from '../schemas.js';
import { answer, messageOf } from './commands.js';
import { telegramText } from './send.js';

const TOKEN = '7012345678:AAHk3-SECRETtokenPART_0123456789ab';

describe('telegram: config slice and secrets', () => {
  it('takes Alertmanager telegram_configs names; the bot token (inline or from a file) is a secret', () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-telegram-'));
    writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
    expect(receiverSchema.parse({ name: 'tg', telegram: { bot_token_file: join(dir, 'token'), chat_id: -1001234567890, message_thread_id: 7 } })).toMatchObject({
      kind: 'telegram',
      settings: { apiUrl: 'https://api.telegram.org', botToken: TOKEN, chatId: '-1001234567890', messageThreadId: 7 },
      secrets: [TOKEN, encodeURIComponent(TOKEN)],
    });
    expect(receiverSchema.parse({ name: 'tg', telegram: { bot_token: TOKEN, chat_id: '@validator_alerts', api_url: 'http://bot-api.internal:8081/' } })).toMatchObject({
      settings: { apiUrl: 'http://bot-api.internal:8081', chatId: '@validator_alerts' },
    });
  });

  it('says what is wrong, at the field', () => {
    const problems = (telegram: unknown) => receiverSchema.safeParse({ name: 'tg', telegram }).error?.issues.map((i) => [i.path.join('.'), i.message]);
    expect(problems({ chat_id: 1 })).toEqual([['telegram', 'receiver "tg": telegram needs bot_token or bot_token_file']]);
    expect(problems({ bot_token: 'not-a-token', chat_id: 1 })).toEqual([['telegram.bot_token', 'receiver "tg": telegram bot_token must look like 123456789:AA… (from @BotFather)']]);
    expect(problems({ bot_token: TOKEN, chat_id: 'my group' })).toEqual([['telegram.chat_id', 'receiver "tg": telegram needs a chat_id: a numeric ID (groups are negative) or @channelusername']]);
    expect(problems({ bot_token: TOKEN, chat_id: 1, api_url: 'api.telegram.org' })).toEqual([['telegram.api_url', 'receiver "tg": telegram api_url must be an http(s) URL']]);
  });
});

describe('telegram: against a Bot API server', () => {
  let api: Awaited<ReturnType<typeof startBotApi>>;
  const config = (chat: number | string, extra: Record<string, unknown> = {}) => ({ name: 'tg', telegram: { bot_token: TOKEN, chat_id: chat, api_url: api.url, ...extra } });

  beforeAll(async () => {
    api = await startBotApi({ token: TOKEN, chats: ['-1001234567890', '@validator_alerts', '42'], blocked: ['43'] });
  });
  afterAll(() => api?.close());

  it('sends an HTML message Telegram accepts: untrusted text shown as written, nothing formatted by it', async () => {
    const hostile = notice('<b>bold</b> <a href="https://evil.example">click</a> &amp; <tg-spoiler>');
    await sendWith(config(-1001234567890, { message_thread_id: 7 }), batch([hostile, notice('C', 'firing', 'critical')]));
    const message = api.sent.at(-1)!;
    expect(api.errors).toEqual([]);
    expect(message).toMatchObject({ chatId: -1001234567890, threadId: 7 });
    const hostileText = '<b>bold</b> <a href="https://evil.example">click</a> &amp; <tg-spoiler>';
    expect(message.text.split('\n')).toEqual([
      `🔴 validator-1: ${hostileText} and C failing`,
      `• validator-1: check ${hostileText} failing`,
      `${hostileText} <broken> & "odd" (AvalancheCheckFailing · warning)`,
      '• validator-1: check C failing',
      'C <broken> & "odd" (AvalancheCheckFailing · critical)',
      'validator-1 on avahealth · 2026-11-22 12:00 UTC',
    ]);
    // the only markup is ours: the headline in bold, the explainers in italics, the link to the target
    expect(message.html.match(/<[a-z][^>]*>/g)).toEqual(['<b>', '<i>', '<i>', '<a href="http://avahealth:9660/targets/validator-1">']);
    const request = api.requests.at(-1)!.json as Record<string, unknown>;
    expect(request).toMatchObject({ parse_mode: 'HTML', link_preview_options: { is_disabled: true } });
    expect(request.reply_parameters).toBeUndefined();
  });

  it('a channel by @username, a user by ID', async () => {
    await sendWith(config('@validator_alerts'), batch([notice('C')]));
    await sendWith(config(42), batch([notice('C', 'resolved')]));
    expect(api.sent.slice(-2).map((m) => [m.chatId, m.text.split('\n')[0]])).toEqual([
      ['@validator_alerts', '🟠 validator-1: C failing'],
      [42, '🟢 validator-1: C recovered'],
    ]);
  });

  it('a batch too long for one message is trimmed to 4,096 characters with a note, never rejected', async () => {
    const many = Array.from({ length: 120 }, (_, i) => ({ ...notice(`check-${i}`), annotations: { summary: `s${i}`, description: `${'<&>'.repeat(60)} ${i}` } }));
    await sendWith(config(42), batch(many));
    const message = api.sent.at(-1)!;
    expect(api.errors).toEqual([]);
    expect(message.text.length).toBeLessThanOrEqual(4096);
    expect(message.text.length).toBeGreaterThan(3500);
    expect(message.text).toMatch(/\n… \d+ more not shown here\nvalidator-1 on avahealth · /);
    const shown = message.text.split('\n').filter((l) => l.startsWith('• ')).length;
    expect(message.text).toContain(`… ${120 - shown} more not shown here`);
    expect(shown).toBeGreaterThan(10);
    expect(parseTelegramHtml(telegramText(batch(many), 'http://avahealth:9660'))).toEqual({ text: message.text });
  });

  it('a cut never splits an emoji: every line and title cut at a character, each batch accepted whole (issue 45.4)', async () => {
    // The emoji start at an even and at an odd offset, so a cut at any length lands inside one in either.
    const emoji = (offset: number, what: string) => ({
      ...notice(`emoji-${offset}`),
      annotations: { summary: `${'x'.repeat(offset)}${'🔥'.repeat(700)}`, description: `${what} ${'y'.repeat(offset)}${'👍🏽'.repeat(400)}` },
    });
    for (const offset of [0, 1, 2, 3]) {
      const before = api.sent.length;
      await sendWith(config(42), batch([emoji(offset, 'first'), { ...emoji(offset, 'second'), labels: { ...notice('C').labels, check: `${'🔥'.repeat(offset)}c` } }]));
      expect(api.errors).toEqual([]);
      const message = api.sent.at(-1)!;
      expect(api.sent.length).toBe(before + 1);
      expect(message.text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|\ufffd/);
      // a skin-toned thumb is one character: never parted from its modifier
      expect(message.text).not.toMatch(/👍(?!🏽)/);
    }
  });

  it('refused for its content (a 400), a message is sent once as plain text before anything is dropped (issue 45.4)', async () => {
    const refusals: string[] = [];
    api.options.refuseMarkup = "Bad Request: can't parse entities: unsupported start tag \"i\" at byte offset 120";
    try {
      const receiver = receiverSchema.parse(config(42));
      const before = api.requests.length;
      await send(batch([{ ...notice('C', 'firing', 'critical'), annotations: { summary: 'validator-1: check C failing\u0007 <b>', description: 'long' } }]), receiver, {
        externalUrl: 'http://avahealth:9660',
        now: 0,
        post: poster(new HttpClient({ maxResponseBytes: 65_536 })),
        refused: (err) => refusals.push(err.message),
      });
      expect(api.requests.length - before).toBe(2);
      const plain = api.sent.at(-1)!;
      expect(plain.parseMode).toBeUndefined();
      expect(plain.text.split('\n')).toEqual(['[CRITICAL] validator-1: C failing', '- validator-1: check C failing␇ <b> (AvalancheCheckFailing · critical)', 'http://avahealth:9660/targets/validator-1 · 2026-11-22 12:00 UTC']);
      expect(refusals).toEqual(["Telegram: Bad Request: can't parse entities: unsupported start tag \"i\" at byte offset 120"]);
    } finally {
      delete api.options.refuseMarkup;
    }
    // a refusal of the chat is no refusal of the text: not sent again
    const before = api.requests.length;
    await expect(sendWith(config(-100999), batch([notice('C')]))).rejects.toThrow('Telegram: Bad Request: chat not found');
    expect(api.requests.length - before).toBe(1);
  });

  it("answers Telegram's errors: chat not found and bot blocked are not retried; 429 waits parameters.retry_after", async () => {
    const failure = (chat: number) => sendWith(config(chat), batch([notice('C')])).then(() => undefined, (err: unknown) => err as DeliveryError);
    const notFound = await failure(-100999);
    expect(notFound).toBeInstanceOf(DeliveryError);
    expect([notFound!.message, notFound!.retryable, notFound!.reason]).toEqual(['Telegram: Bad Request: chat not found', false, 'http_4xx']);
    const blocked = await failure(43);
    expect([blocked!.message, blocked!.retryable, blocked!.reason]).toEqual(['Telegram: Forbidden: bot was blocked by the user', false, 'http_4xx']);
    api.throttle.push(35);
    const limited = await failure(42);
    expect([limited!.message, limited!.retryable, limited!.reason, limited!.retryAfterMs]).toEqual(['Telegram: Too Many Requests: retry after 35', true, 'rate_limited', 35_000]);
    // no error names the token
    for (const err of [notFound, blocked, limited]) expect(err!.message).not.toContain(TOKEN.split(':')[1]);
  });

  it('a resolve replies to its firing message, remembered across a restart; the note ends with the resolve', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'avahealth-telegram-notes-'));
    const file = notesFile(stateDir, 'tg');
    await sendWith(config(-1001234567890), batch([notice('C'), notice('P')]), new ReceiverNotes(file));
    const firing = api.sent.at(-1)!;
    // a reminder of C, after a restart (new notes read from the file): a reply too
    await sendWith(config(-1001234567890), batch([{ ...notice('C'), kind: 'reminder' }]), new ReceiverNotes(file));
    expect(api.sent.at(-1)!.replyTo).toEqual({ message_id: firing.messageId, allow_sending_without_reply: true });
    await sendWith(config(-1001234567890), batch([notice('C', 'resolved'), notice('P', 'resolved')]), new ReceiverNotes(file));
    expect(api.sent.at(-1)!).toMatchObject({ replyTo: { message_id: firing.messageId, allow_sending_without_reply: true }, text: expect.stringMatching(/^🟢 validator-1: C and P recovered/) });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ notes: {} });
    // the next incident of C starts a message of its own
    await sendWith(config(-1001234567890), batch([{ ...notice('C'), startsAt: '2026-11-22T13:00:00.000Z' }]), new ReceiverNotes(file));
    expect(api.sent.at(-1)!.replyTo).toBeUndefined();
    expect(readFileSync(file, 'utf8')).not.toContain(TOKEN);
  });

  it('unreadable notes are set aside: the resolve is sent, on its own', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'avahealth-telegram-notes-'));
    const file = notesFile(stateDir, 'tg');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '{"notes": ["not', 'utf8');
    const notes = new ReceiverNotes(file);
    expect(notes.problem?.movedTo).toMatch(/tg\.json\.corrupt-/);
    await sendWith(config(42), batch([notice('C', 'resolved')]), notes);
    expect(api.sent.at(-1)!).toMatchObject({ chatId: 42, text: expect.stringMatching(/^🟢 validator-1: C recovered/) });
    expect(api.sent.at(-1)!.replyTo).toBeUndefined();
  });
});

describe('telegram commands: config and what a chat may send', () => {
  it('off unless commands is given; chat_ids default to the chat; user_ids are required', () => {
    expect(receiverSchema.parse({ name: 'tg', telegram: { bot_token: TOKEN, chat_id: -100123 } }).settings).not.toHaveProperty('commands');
    expect(receiverSchema.parse({ name: 'tg', telegram: { bot_token: TOKEN, chat_id: -100123, commands: { user_ids: [111, '222'] } } }).settings).toMatchObject({ commands: { userIds: ['111', '222'], chatIds: ['-100123'] } });
    const problems = (telegram: unknown) => receiverSchema.safeParse({ name: 'tg', telegram }).error?.issues.map((i) => [i.path.join('.'), i.message]);
    expect(problems({ bot_token: TOKEN, chat_id: '@alerts', commands: { user_ids: [111] } })).toEqual([['telegram.commands', 'receiver "tg": telegram commands need chat_ids when chat_id is a @channelusername (commands come from a group or a private chat)']]);
    expect(problems({ bot_token: TOKEN, chat_id: 1, commands: { user_ids: [] } })?.[0]?.[0]).toBe('telegram.commands.user_ids');
    expect(problems({ bot_token: TOKEN, chat_id: 1, commands: { user_ids: ['@alice'] } })?.[0]?.[0]).toBe('telegram.commands.user_ids.0');
  });

  it('an update is read only in its documented shape; a command is capped and checked', () => {
    const actions = { status: () => 'fleet', ack: (refs: string[]) => `ack ${refs.join(',')}` };
    const update = (message: unknown) => ({ update_id: 1, message });
    const good = { message_id: 5, chat: { id: -100123 }, from: { id: 111, username: 'alice' }, text: '/status' };
    expect(messageOf(update(good))).toEqual({ messageId: 5, chatId: '-100123', fromId: '111', fromName: 'alice', text: '/status' });
    for (const bad of [{ ...good, chat: { id: '-100123' } }, { ...good, from: undefined }, { ...good, text: 5 }, { ...good, from: { id: 2 ** 60 } }, null, 'text']) expect(messageOf(update(bad))).toBeUndefined();
    // a username that is not one is left out
    expect(messageOf(update({ ...good, from: { id: 111, username: 'a<b>' } }))).not.toHaveProperty('fromName');
    const say = (text: string, extra: Partial<Parameters<typeof answer>[0]> = {}) => answer({ messageId: 1, chatId: '1', fromId: '111', text, ...extra }, actions, 'ops_bot', 0);
    expect(say('hello')).toBeUndefined();
    expect(say('/status@OPS_bot')).toBe('fleet');
    expect(say('/status@other_bot')).toBeUndefined();
    expect(say(`/status ${'x'.repeat(100_000)}`)).toBe('A command is at most 512 characters.');
    expect(say('/silence validator-1 1h')).toBe('Silences need the admin API: this avahealth runs without --web.enable-admin-api.');
    expect(say('/ack_3f1c0a9b')).toBe('ack 3f1c0a9b');
    expect(say('/ack', { repliedText: '• x (A · warning · /ack_0123abcd)\n• y (B · critical · /ack_89abcdef)' })).toBe('ack 0123abcd,89abcdef');
    expect(say('/rm -rf /\u001b[2J')).toMatch(/^Unknown command \/rm\.\n\/status/);
    expect(say('/ack <b>')).toBe('"<b>" is no incident id: 6 to 16 hex digits, as after /ack_ in an alert message.');
  });
});

