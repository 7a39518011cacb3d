/**
 * The Telegram bot's commands, off unless the receiver has `commands`: `/status` (the fleet in a
 * few lines), `/silence <target> <duration> [reason]` (the admin API's silence: the same checks,
 * limits and Alertmanager mirroring; only with --web.enable-admin-api) and `/ack <incident>` (no
 * more reminders for it until it resolves or escalates). Updates come by long polling of the Bot
 * API's getUpdates through the shared HTTP client; only one replica of a sharded fleet polls.
 *
 * Nothing a chat sends is trusted beyond its ids: a message is read only when its chat is one of
 * `commands.chat_ids` and its sender one of `commands.user_ids` (anything else is not answered);
 * text is capped, arguments are checked like the API's, and an answer is plain text (no markup).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../../log.js';
import type { HttpClient } from '../../../transport/client.js';
import { cutText, redact, snippet, wellFormed } from '../../../util/text.js';
import { oneLine } from '../../../util/visible.js';
import { durationSeconds } from '../../rules/rule.js';
import { silenceBodySchema, type SilenceInput } from '../../silences.js';
import type { ReceiverOf } from '../schemas.js';

/** What the daemon does for a command; the module itself knows no pipeline. */
export interface CommandActions {
  /** The fleet in a few lines (plain text). */
  status(): string;
  /** The admin API's silence, present only with --web.enable-admin-api. */
  silence?(input: SilenceInput): { id: string } | { error: string };
  /** Acknowledges the firing incidents whose fingerprint starts with each of `refs`: what to answer. */
  ack(refs: string[], by: string): string;
}

/** The longest command read; Telegram's own limit is 4,096 characters. */
export const MAX_COMMAND = 512;
const MAX_ANSWER = 3500;
/** Updates per getUpdates: each at most a 4,096-character message, well within the client's 1 MiB. */
const UPDATES_PER_POLL = 20;
/** Seconds the Bot API holds a getUpdates open when nothing comes. */
const LONG_POLL_SECONDS = 25;
const MAX_BACKOFF_MS = 60_000;
const ACK_REF = /^[0-9a-f]{6,16}$/;

export const HELP = [
  '/status: the fleet in a few lines',
  '/silence <target> <duration> [reason]: hold its notifications (e.g. /silence validator-1 2h disk swap)',
  '/ack <incident>: no more reminders for it until it resolves or escalates (the id after /ack_ in an alert message, or reply /ack to the message)',
].join('\n');

interface Message {
  messageId: number;
  chatId: string;
  threadId?: number;
  fromId: string;
  fromName?: string;
  text: string;
  /** The text of the message this one replies to (an alert message's /ack_ ids). */
  repliedText?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const safeInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/** One update's message, if it has the shape of one; anything else is skipped. */
export function messageOf(update: unknown): Message | undefined {
  const m = isObject(update) ? update.message : undefined;
  if (!isObject(m) || !isObject(m.chat) || !isObject(m.from) || !safeInt(m.message_id) || !safeInt(m.chat.id) || !safeInt(m.from.id) || typeof m.text !== 'string') return undefined;
  const replied = isObject(m.reply_to_message) && typeof m.reply_to_message.text === 'string' ? m.reply_to_message.text.slice(0, 4096) : undefined;
  const username = typeof m.from.username === 'string' && /^\w{1,64}$/.test(m.from.username) ? m.from.username : undefined;
  return {
    messageId: m.message_id,
    chatId: String(m.chat.id),
    ...(safeInt(m.message_thread_id) ? { threadId: m.message_thread_id } : {}),
    fromId: String(m.from.id),
    ...(username ? { fromName: username } : {}),
    text: m.text,
    ...(replied !== undefined ? { repliedText: replied } : {}),
  };
}

/**
 * A command's answer, or undefined when the message is no command for this bot. `bot` is the
 * bot's username when known: a command addressed to another bot (`/status@other_bot`) is not ours.
 */
export function answer(message: Message, actions: CommandActions, bot: string | undefined, now: number): string | undefined {
  if (!message.text.startsWith('/')) return undefined;
  if (message.text.length > MAX_COMMAND) return `A command is at most ${MAX_COMMAND} characters.`;
  const [head = '', ...args] = message.text.trim().split(/\s+/);
  const [command = '', addressee] = head.slice(1).split('@');
  if (addressee !== undefined && bot !== undefined && addressee.toLowerCase() !== bot.toLowerCase()) return undefined;
  const by = `telegram:${message.fromId}${message.fromName ? ` (@${message.fromName})` : ''}`;
  if (command === 'status') return actions.status();
  if (command === 'help' || command === 'start') return HELP;
  if (command === 'silence') return silence(args, actions, by, now);
  const ackShortcut = /^ack_([0-9a-f]{6,16})$/.exec(command);
  if (command === 'ack' || ackShortcut) {
    const refs = ackShortcut ? [ackShortcut[1]!] : args.length > 0 ? args : [...(message.repliedText ?? '').matchAll(/\/ack_([0-9a-f]{6,16})/g)].map((m) => m[1]!);
    if (refs.length === 0) return 'Say which incident: /ack <id> (the id after /ack_ in the alert message), or reply /ack to the alert message.';
    const bad = refs.find((ref) => !ACK_REF.test(ref));
    if (bad !== undefined) return `"${shown(bad)}" is no incident id: 6 to 16 hex digits, as after /ack_ in an alert message.`;
    return actions.ack([...new Set(refs)].slice(0, 20), by);
  }
  return `Unknown command /${shown(command)}.\n${HELP}`;
}

/** Untrusted text quoted in an answer: one line, short. */
const shown = (text: string) => cutText(oneLine(wellFormed(text)), 40);

function silence(args: string[], actions: CommandActions, by: string, now: number): string {
  if (!actions.silence) return 'Silences need the admin API: this avahealth runs without --web.enable-admin-api.';
  const [target, duration, ...reason] = args;
  if (!target || !duration) return 'Usage: /silence <target> <duration> [reason], e.g. /silence validator-1 2h disk swap';
  const seconds = durationSeconds(duration);
  if (seconds === undefined || seconds <= 0) return `"${shown(duration)}" is no duration: say 90m, 2h or 1d12h.`;
  const endsAt = now + seconds * 1000;
  if (!Number.isFinite(endsAt) || endsAt > 8.64e15) return `"${shown(duration)}" is too long.`;
  const parsed = silenceBodySchema.safeParse({ matchers: { target }, endsAt: new Date(endsAt).toISOString(), comment: reason.join(' ') || 'silenced from Telegram', createdBy: by });
  if (!parsed.success) return `Not silenced: ${parsed.error.issues.map((i) => i.message).join('; ')}.`;
  const made = actions.silence(parsed.data);
  if ('error' in made) return `Not silenced: ${made.error}.`;
  const until = new Date(parsed.data.endsAt).toISOString().slice(0, 16).replace('T', ' ');
  return `Silenced ${target} until ${until} UTC (silence ${made.id}): ${parsed.data.comment}.\nLift it with DELETE /api/v1/silences/${made.id}.`;
}

interface BotAnswer {
  ok?: boolean;
  description?: string;
  result?: unknown;
  parameters?: { retry_after?: number };
}

/** One receiver's bot: reads its updates while it runs, answers its commands. */
export class TelegramCommands {
  private readonly stopping = new AbortController();
  private running?: Promise<void>;
  private offset = 0;
  private botName?: string;
  /** The last problem logged (said again only when it changes). */
  private problem?: string;

  constructor(
    private readonly receiver: ReceiverOf<'telegram'>,
    private readonly http: HttpClient,
    private readonly actions: CommandActions,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  private get settings() {
    return this.receiver.settings;
  }

  private async call(method: string, body: object, timeoutMs = 10_000): Promise<BotAnswer> {
    const response = await this.http.request({
      url: `${this.settings.apiUrl}/bot${this.settings.botToken}/${method}`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      timeoutMs,
      secrets: this.receiver.secrets,
      signal: this.stopping.signal,
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(response.body);
    } catch {
      parsed = undefined;
    }
    const said = isObject(parsed) ? (parsed as BotAnswer) : {};
    if (response.status >= 200 && response.status < 300 && said.ok === true) return said;
    throw Object.assign(new Error(`Telegram ${method}: HTTP ${response.status}: ${snippet(typeof said.description === 'string' ? said.description : response.body, this.receiver.secrets)}`), {
      retryAfterSeconds: said.parameters?.retry_after,
      status: response.status,
    });
  }

  private async loop(): Promise<void> {
    const signal = this.stopping.signal;
    let failures = 0;
    while (!signal.aborted) {
      try {
        if (this.botName === undefined) {
          const me = await this.call('getMe', {});
          this.botName = isObject(me.result) && typeof me.result.username === 'string' ? me.result.username : '';
        }
        const got = await this.call('getUpdates', { offset: this.offset, limit: UPDATES_PER_POLL, timeout: LONG_POLL_SECONDS, allowed_updates: ['message'] }, (LONG_POLL_SECONDS + 10) * 1000);
        if (this.problem !== undefined) this.log.info({ receiver: this.receiver.name }, 'telegram commands: reading updates again');
        this.problem = undefined;
        failures = 0;
        const updates = Array.isArray(got.result) ? got.result.slice(0, UPDATES_PER_POLL) : [];
        for (const update of updates) {
          const id = isObject(update) && safeInt(update.update_id) ? update.update_id : undefined;
          if (id === undefined) continue;
          this.offset = Math.max(this.offset, id + 1);
          await this.handle(update);
        }
      } catch (err) {
        if (signal.aborted) break;
        failures++;
        const e = err as Error & { retryAfterSeconds?: number; status?: number };
        const conflict = e.status === 409;
        const message = conflict ? 'another process reads this bot\'s updates (a webhook, or a second avahealth with commands on): it answers the commands, not this one' : e.message;
        if (message !== this.problem) this.log.warn({ receiver: this.receiver.name, error: redact(e.message, this.receiver.secrets) }, `telegram commands: ${conflict ? message : 'cannot read updates; retrying'}`);
        this.problem = message;
        const wait = typeof e.retryAfterSeconds === 'number' && e.retryAfterSeconds >= 0 ? Math.min(e.retryAfterSeconds * 1000, 3_600_000) : Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(failures - 1, 6));
        await sleep(conflict ? MAX_BACKOFF_MS : wait, undefined, { signal }).catch(() => undefined);
      }
    }
  }

  /** One update: answered only from a configured user in a configured chat. */
  private async handle(update: unknown): Promise<void> {
    const message = messageOf(update);
    if (!message) return;
    const { chatIds, userIds } = this.settings.commands!;
    if (!chatIds.includes(message.chatId) || !userIds.includes(message.fromId)) {
      this.log.debug({ receiver: this.receiver.name, chat: message.chatId, user: message.fromId }, 'telegram commands: a message from a chat or user not configured; not read');
      return;
    }
    let text: string | undefined;
    try {
      text = answer(message, this.actions, this.botName || undefined, this.now());
    } catch (err) {
      this.log.error({ receiver: this.receiver.name, err }, 'telegram command failed');
      text = 'That command failed; the log says why.';
    }
    if (text === undefined) return;
    this.log.info({ receiver: this.receiver.name, chat: message.chatId, user: message.fromId, command: cutText(oneLine(wellFormed(message.text)), 80) }, 'telegram command answered');
    try {
      await this.call('sendMessage', {
        chat_id: Number(message.chatId),
        ...(message.threadId !== undefined ? { message_thread_id: message.threadId } : {}),
        text: cutText(wellFormed(text), MAX_ANSWER),
        link_preview_options: { is_disabled: true },
        reply_parameters: { message_id: message.messageId, allow_sending_without_reply: true },
      });
    } catch (err) {
      if (!this.stopping.signal.aborted) this.log.warn({ receiver: this.receiver.name, error: redact((err as Error).message, this.receiver.secrets) }, 'telegram commands: the answer was not sent');
    }
  }
}
