/**
 * The bot's command loop against a Bot API server on port 0 (test/helpers/telegram.ts, written from
 * https://core.telegram.org/bots/api: getMe, getUpdates long polling with offsets, sendMessage), and
 * what `/silence` answers. The daemon's side of the commands (the fleet, the admin API's silences,
 * acks) is test/integration/telegram-commands.test.ts; here the actions are the loop's inputs.
 */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { startCapture } from '../../../../test/helpers/capture.js';
import { waitFor } from '../../../../test/helpers/harness.js';
import { startBotApi } from '../../../../test/helpers/telegram.js';
import { createLogger } from '../../../log.js';
import { HttpClient } from '../../../transport/client.js';
import type { SilenceInput } from '../../silences.js';
import { receiverSchema, type ReceiverOf } from '../schemas.js';
import { answer, TelegramCommands, type CommandActions } from './commands.js';

const TOKEN = '7012345678:AAHk3-SECRETtokenPART_0123456789ab';
const GROUP = -1001234567890;
const OTHER_GROUP = -1009999999999;
/** Configured for commands, unknown to the Bot API: an answer there is refused ("chat not found"). */
const GONE_GROUP = -1005555555555;
const ONCALL = 111_111;
const STRANGER = 222_222;
const NOW = Date.parse('2026-12-07T12:00:00.000Z');

type Logged = Record<string, unknown> & { level: number; msg: string };

const running: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of running.splice(0)) await stop();
});

async function rig(actions: Partial<CommandActions> = {}, token = TOKEN, apiUrl?: string) {
  const bot = await startBotApi({ token: TOKEN, chats: [String(GROUP), String(OTHER_GROUP)], username: 'avahealth_ops_bot' });
  const receiver = receiverSchema.parse({
    name: 'tg',
    telegram: { bot_token: token, chat_id: GROUP, api_url: apiUrl ?? bot.url, commands: { user_ids: [ONCALL], chat_ids: [GROUP, GONE_GROUP] } },
  }) as ReceiverOf<'telegram'>;
  const logged: Logged[] = [];
  const destination = new PassThrough();
  destination.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line) logged.push(JSON.parse(line) as Logged);
  });
  const http = new HttpClient({ maxResponseBytes: 1 << 20, userAgent: 'avahealth-test' });
  const commands = new TelegramCommands(receiver, http, { status: () => 'fleet: 2 healthy', ack: (refs, by) => `acked ${refs.join(',')} for ${by}`, ...actions }, createLogger({ level: 'info', format: 'json', destination }), () => NOW);
  const stop = async () => {
    await commands.stop();
    await bot.close();
  };
  running.push(stop);
  commands.start();
  /** A user says `text` (by default the on-call user in the group); returns how many messages the bot had sent before. */
  const say = (text: string, from: { chatId?: number; userId?: number; threadId?: number } = {}) => {
    const before = bot.sent.length;
    bot.userSays({ chatId: from.chatId ?? GROUP, userId: from.userId ?? ONCALL, text, username: 'oncall_alice', ...(from.threadId !== undefined ? { threadId: from.threadId } : {}) });
    return before;
  };
  /** The bot's first message after `before`: the answer to what was said then, or to a later barrier. */
  const answered = (before: number) => waitFor('an answer', () => bot.sent[before]);
  return { bot, commands, logged, say, answered, stop };
}

describe('the Telegram command loop against a Bot API server', () => {
  it('answers a configured user in a configured chat: a plain-text reply in the thread it came from', async () => {
    const r = await rig();
    const reply = await r.answered(r.say('/status', { threadId: 7 }));
    expect(reply).toMatchObject({ chatId: GROUP, threadId: 7, text: 'fleet: 2 healthy', replyTo: { message_id: 1, allow_sending_without_reply: true } });
    expect(reply.parseMode).toBeUndefined();
    expect(r.logged.find((l) => l.msg === 'telegram command answered')).toMatchObject({ level: 30, receiver: 'tg', chat: String(GROUP), user: String(ONCALL), command: '/status' });
  });

  it('reads everything else once and answers none of it: another chat, another user, another bot, no command', async () => {
    const r = await rig();
    r.say('/status', { userId: STRANGER });
    r.say('/status', { chatId: OTHER_GROUP });
    r.say('/status@someone_elses_bot');
    r.say('good morning');
    // A barrier: the loop reads updates in order, so once this is answered the ones before were read.
    const barrier = await r.answered(r.say('/ack_0123abcd@AVAHEALTH_OPS_BOT'));
    expect(barrier.text).toBe('acked 0123abcd for telegram:111111 (@oncall_alice)');
    expect(r.bot.sent).toHaveLength(1);
    // Each update was confirmed by the next poll's offset, never read again.
    await waitFor('the updates confirmed', () => r.bot.updates.length === 0);
    expect(r.bot.sent).toHaveLength(1);
  });

  it('a command that throws is answered that it failed, and logged; an answer the API refuses is logged, and the loop goes on', async () => {
    const r = await rig({
      status: () => {
        throw new Error('the store is gone');
      },
    });
    expect((await r.answered(r.say('/status'))).text).toBe('That command failed; the log says why.');
    expect(r.logged.find((l) => l.msg === 'telegram command failed')).toMatchObject({ level: 50, err: { message: 'the store is gone' } });
    r.say('/help', { chatId: GONE_GROUP });
    const after = await r.answered(r.say('/ack 0123abcd'));
    expect(after.text).toBe('acked 0123abcd for telegram:111111 (@oncall_alice)');
    expect(r.logged.find((l) => l.msg === 'telegram commands: the answer was not sent')).toMatchObject({ level: 40, error: 'Telegram sendMessage: HTTP 400: Bad Request: chat not found' });
  });

  it('a token the API refuses: one warning, without the token, and tried again', async () => {
    const r = await rig({}, '7012345678:AAwrongTOKENpart_9876543210zyxwvu');
    await waitFor('the warning', () => r.logged.some((l) => l.msg === 'telegram commands: cannot read updates; retrying'));
    const warning = r.logged.find((l) => l.msg === 'telegram commands: cannot read updates; retrying')!;
    expect(warning).toMatchObject({ level: 40, receiver: 'tg', error: 'Telegram getMe: HTTP 401: Unauthorized' });
    await waitFor('a second try', () => r.bot.errors.length >= 2, 15_000);
    expect(r.logged.filter((l) => l.msg === 'telegram commands: cannot read updates; retrying')).toHaveLength(1);
    expect(JSON.stringify(r.logged)).not.toContain('AAwrongTOKENpart');
    await r.commands.stop();
    expect(r.bot.errors.every((e) => e.status === 401)).toBe(true);
  });

  it("an answer that is not the Bot API's (a proxy's 200 page) is no update: warned, not read as an empty list", async () => {
    const portal = await startCapture(() => ({ status: 200, headers: { 'content-type': 'text/html' }, body: '<html>Sign in to the guest network</html>' }));
    running.push(() => portal.close());
    const r = await rig({}, TOKEN, portal.url);
    await waitFor('the warning', () => r.logged.some((l) => l.msg === 'telegram commands: cannot read updates; retrying'));
    expect(r.logged.find((l) => l.msg === 'telegram commands: cannot read updates; retrying')).toMatchObject({ level: 40, error: 'Telegram getMe: HTTP 200: Sign in to the guest network' });
    expect(portal.requests.map((q) => q.path)).toEqual([`/bot${TOKEN}/getMe`]);
  });

  it("a second reader of the bot's updates (409 Conflict): says who answers instead, once, and stops when asked", async () => {
    const r = await rig();
    await waitFor('the first long poll', () => r.bot.requests.some((q) => q.path.endsWith('/getUpdates')));
    const second = new TelegramCommands(
      receiverSchema.parse({ name: 'tg2', telegram: { bot_token: TOKEN, chat_id: GROUP, api_url: r.bot.url, commands: { user_ids: [ONCALL] } } }) as ReceiverOf<'telegram'>,
      new HttpClient({ maxResponseBytes: 1 << 20, userAgent: 'avahealth-test' }),
      { status: () => 'second', ack: () => 'second' },
      createLogger({ level: 'silent', format: 'json', destination: new PassThrough() }),
    );
    second.start();
    running.push(() => second.stop());
    await waitFor('the conflict', () => r.logged.some((l) => l.level === 40 && typeof l.msg === 'string' && l.msg.includes('another process reads')));
    expect(r.logged.filter((l) => l.level === 40).map((l) => [l.msg, l.error])).toEqual([
      [
        "telegram commands: another process reads this bot's updates (a webhook, or a second avahealth with commands on): it answers the commands, not this one",
        'Telegram getUpdates: HTTP 409: Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
      ],
    ]);
    // It waits a minute before trying again; stop() does not wait for that.
    await r.commands.stop();
  });
});

describe('/silence: the admin API\'s silence, from a chat', () => {
  const made: SilenceInput[] = [];
  const actions: CommandActions = {
    status: () => 'fleet',
    ack: () => 'ack',
    silence: (input) => {
      made.push(input);
      return input.matchers.target === 'no-such-node' ? { error: 'matchers match no target of the fleet' } : { id: `s-${made.length}` };
    },
  };
  // The silence checks hold endsAt to the real clock (ahead of it, within the longest silence): now, on a whole minute.
  const AHEAD = Math.ceil(Date.now() / 60_000) * 60_000;
  const minute = (ms: number) => `${new Date(ms).toISOString().slice(0, 10)} ${new Date(ms).toISOString().slice(11, 16)}`;
  const say = (text: string) => answer({ messageId: 1, chatId: '1', fromId: String(ONCALL), fromName: 'oncall_alice', text }, actions, 'avahealth_ops_bot', AHEAD);

  it('makes it with the reason, who asked and until when, and says how to lift it', () => {
    made.length = 0;
    expect(say('/silence validator-1 2h disk swap')).toBe(`Silenced validator-1 until ${minute(AHEAD + 2 * 3_600_000)} UTC (silence s-1): disk swap.\nLift it with DELETE /api/v1/silences/s-1.`);
    expect(made[0]).toEqual({ matchers: { target: 'validator-1' }, endsAt: AHEAD + 2 * 3_600_000, comment: 'disk swap', createdBy: 'telegram:111111 (@oncall_alice)' });
    expect(say('/silence validator-2 1d12h')).toBe(`Silenced validator-2 until ${minute(AHEAD + 36 * 3_600_000)} UTC (silence s-2): silenced from Telegram.\nLift it with DELETE /api/v1/silences/s-2.`);
  });

  it('says what is wrong: usage, a duration that is none or too long, what the silence checks refuse', () => {
    made.length = 0;
    expect(say('/silence')).toBe('Usage: /silence <target> <duration> [reason], e.g. /silence validator-1 2h disk swap');
    expect(say('/silence validator-1')).toBe('Usage: /silence <target> <duration> [reason], e.g. /silence validator-1 2h disk swap');
    expect(say('/silence validator-1 soon')).toBe('"soon" is no duration: say 90m, 2h or 1d12h.');
    expect(say('/silence validator-1 0s')).toBe('"0s" is no duration: say 90m, 2h or 1d12h.');
    expect(say('/silence validator-1 99999999999d')).toBe('"99999999999d" is too long.');
    expect(say('/silence ~validator-( 1h')).toMatch(/^Not silenced: matchers\.target: invalid regular expression: .+\.$/);
    expect(made).toEqual([]);
    expect(say('/silence no-such-node 1h')).toBe('Not silenced: matchers match no target of the fleet.');
  });
});
