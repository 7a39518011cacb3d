/**
 * The Telegram bot's commands end to end (issue 46): the daemon long-polls a Bot API server
 * (test/helpers/telegram.ts) and answers /status, /silence and /ack only in the configured chats
 * and from the configured users; /silence is the admin API's (same checks, same limits); /ack
 * stops an incident's reminders until it escalates; with several shards one replica polls and
 * says whose targets it sees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inShard } from '../../src/shard.js';
import type { SimServer } from '../../src/sim/server.js';
import { get, setScenario, startDaemon, startSim, waitFor, type RunningDaemon } from '../helpers/harness.js';
import { startBotApi, type SentMessage } from '../helpers/telegram.js';

const TOKEN = '7012345678:AAHk3-SECRETtokenPART_0123456789ab';
const GROUP = -1001234567890;
const OTHER_GROUP = -1009999999999;
const ONCALL = 111_111;
const STRANGER = 222_222;

type Bot = Awaited<ReturnType<typeof startBotApi>>;

/** Says `text` as `userId` in `chatId`, and waits for the bot's answer to it (a reply); undefined if it was read and not answered. */
async function ask(bot: Bot, text: string, { chatId = GROUP, userId = ONCALL, replyTo }: { chatId?: number; userId?: number; replyTo?: number } = {}): Promise<SentMessage | undefined> {
  const before = bot.sent.length;
  bot.userSays({ chatId, userId, text, username: userId === ONCALL ? 'oncall_alice' : 'mallory', ...(replyTo !== undefined ? { replyTo } : {}) });
  if (chatId === GROUP && userId === ONCALL) return waitFor(`the answer to ${text}`, () => bot.sent.slice(before).find((m) => m.chatId === chatId && m.replyTo !== undefined && m.parseMode === undefined), 20_000);
  // not ours to answer: read (confirmed by the next poll) and left alone; a /status after it is the barrier
  await waitFor('the message read', () => bot.updates.length === 0, 20_000);
  const barrier = await ask(bot, '/status');
  return bot.sent.slice(before).find((m) => m !== barrier && m.chatId === chatId);
}

describe('Telegram commands against a Bot API server', () => {
  let sim: SimServer;
  let bot: Bot;
  let d: RunningDaemon;

  beforeAll(async () => {
    sim = await startSim([
      { name: 'validator-1', scenario: 'healthy' },
      { name: 'validator-2', scenario: 'healthy' },
    ]);
    bot = await startBotApi({ token: TOKEN, chats: [String(GROUP), String(OTHER_GROUP)], username: 'avahealth_ops_bot' });
    d = await startDaemon(
      `
listen: 127.0.0.1:0
nodes:
  - {name: validator-1, url: "${sim.nodeUrl('validator-1')}", interval: 1s, endpoints: [health], validator: false}
  - {name: validator-2, url: "${sim.nodeUrl('validator-2')}", interval: 1s, endpoints: [health], validator: false}
alerts:
  for_polls: 1
  repeat_interval: 2s
  rules:
    AvalancheCheckFailing: {critical_after: 15s}
  receivers:
    - name: tg
      telegram:
        bot_token: "${TOKEN}"
        chat_id: ${GROUP}
        api_url: "${bot.url}"
        commands: {user_ids: [${ONCALL}]}
`,
      { adminApi: true },
    );
    await waitFor('every target polled', () => d.daemon.ready, 20_000);
  }, 60_000);

  afterAll(async () => {
    await d?.stop();
    await sim?.close();
    await bot?.close();
  });

  it('/status: the fleet in a few lines, as a plain-text reply in the chat it came from', async () => {
    const status = (await ask(bot, '/status@avahealth_ops_bot'))!;
    const [head, link, ...rest] = status.text.split('\n');
    expect([head, rest]).toEqual(['2 targets: 2 healthy · 0 alerts firing', []]);
    expect(link).toMatch(/^http:\/\/.+\/$/);
    // a command for another bot in the group is not ours
    const before = bot.sent.length;
    bot.userSays({ chatId: GROUP, userId: ONCALL, text: '/status@some_other_bot' });
    await ask(bot, '/help');
    expect(bot.sent.slice(before).map((m) => m.text.split('\n')[0])).toEqual(['/status: the fleet in a few lines']);
  });

  it('nothing from another chat or another user is answered or acted on', async () => {
    expect(await ask(bot, '/status', { userId: STRANGER })).toBeUndefined();
    expect(await ask(bot, '/silence validator-1 2h', { chatId: OTHER_GROUP })).toBeUndefined();
    expect(await ask(bot, '/silence validator-1 2h', { userId: STRANGER })).toBeUndefined();
    expect(d.daemon.alerts.silences.list()).toEqual([]);
    const logs = d.logs();
    expect(logs).toContain('telegram commands: a message from a chat or user not configured; not read');
    expect(logs).not.toContain(TOKEN.split(':')[1]!);
  });

  it('/silence: the admin API silence, with its checks and limits', async () => {
    const made = (await ask(bot, '/silence validator-1 2h disk <b>swap</b>'))!;
    expect(made.text).toMatch(/^Silenced validator-1 until \d{4}-\d\d-\d\d \d\d:\d\d UTC \(silence [\w-]+\): disk <b>swap<\/b>\.\nLift it with DELETE \/api\/v1\/silences\/[\w-]+\.$/);
    const { silences } = JSON.parse((await get(`${d.url}/api/v1/alerts`)).body) as { silences: Array<{ matchers: unknown; comment: string; createdBy: string; endsAt: number }> };
    expect(silences).toMatchObject([{ matchers: { target: 'validator-1' }, comment: 'disk <b>swap</b>', createdBy: 'telegram:111111 (@oncall_alice)' }]);
    // the API says seconds: two hours from now
    expect(silences[0]!.endsAt * 1000 - Date.now()).toBeGreaterThan(7_000_000);
    expect((await ask(bot, '/silence validator-1 400d'))!.text).toMatch(/^Not silenced: .*year/);
    expect((await ask(bot, '/silence validator-3 1h'))!.text).toBe('Not silenced: matchers.target: no target is named "validator-3" (did you mean "validator-1"?); the silence would match nothing.');
    expect((await ask(bot, '/silence validator-1 soon'))!.text).toBe('"soon" is no duration: say 90m, 2h or 1d12h.');
    expect((await ask(bot, `/silence validator-1 1h ${'x'.repeat(600)}`))!.text).toBe('A command is at most 512 characters.');
    expect(d.daemon.alerts.silences.list()).toHaveLength(1);
  });

  it('/ack: no more reminders for the incident until it escalates; the others keep theirs', async () => {
    const firstAlert = bot.sent.length;
    await setScenario(sim, 'validator-2', 'network-down');
    const firing = await waitFor('the firing message with its /ack_ ids', () => bot.sent.slice(firstAlert).find((m) => m.parseMode === 'HTML' && m.text.startsWith('🟠 validator-2:')), 20_000);
    const ackOf = (check: string) => new RegExp(`• validator-2: check ${check} failing\\n.*· /ack_([0-9a-f]{8})\\)`).exec(firing.text)?.[1];
    const c = ackOf('C')!;
    expect(c).toMatch(/^[0-9a-f]{8}$/);
    const acked = (await ask(bot, `/ack_${c}`))!;
    expect(acked.text).toBe('Acknowledged validator-2 AvalancheCheckFailing C (warning): no more reminders until it resolves or escalates.');
    expect(d.daemon.alerts.list().find((a) => a.labels.check === 'C' && a.target === 'validator-2')!.acknowledged).toMatchObject({ by: 'telegram:111111 (@oncall_alice)', severity: 'warning' });
    // reminders go on for P, X and network, not for C (one queued before the ack may still name it)
    const afterAck = bot.sent.length;
    const reminder = await waitFor('a reminder without C', () => bot.sent.slice(afterAck).find((m) => m.parseMode === 'HTML' && m.text.includes('· reminder') && !m.text.includes('check C failing')), 20_000);
    expect(reminder.text).toContain('check P failing');
    // escalation ends the acknowledgement: C is told as critical, then reminded again
    const escalated = await waitFor('C escalated', () => bot.sent.slice(afterAck).find((m) => /check C failing\n.*AvalancheCheckFailing · critical · severity changed/.test(m.text)), 30_000);
    const afterEscalation = bot.sent.indexOf(escalated) + 1;
    await waitFor('C reminded again', () => bot.sent.slice(afterEscalation).some((m) => m.text.includes('check C failing') && m.text.includes('· reminder')), 20_000);
    // /ack as a reply to an alert message acknowledges every incident it names
    const all = (await ask(bot, '/ack', { replyTo: reminder.messageId }))!;
    expect(all.text).toMatch(/^Acknowledged validator-2 AvalancheCheckFailing P \((critical|warning)\); validator-2 AvalancheCheckFailing X /);
    expect((await ask(bot, '/ack 0000000000'))!.text).toBe('No firing incident has an id starting with 0000000000.');
    expect((await ask(bot, '/ack zz'))!.text).toBe('"zz" is no incident id: 6 to 16 hex digits, as after /ack_ in an alert message.');
  });
});

describe('Telegram commands with several shards', () => {
  it('one replica polls the bot and says whose targets it sees; /silence needs the admin API', { timeout: 60_000 }, async () => {
    const sim = await startSim(['a', 'b', 'c', 'd'].map((name) => ({ name: `node-${name}`, scenario: 'healthy' as const })));
    const bot = await startBotApi({ token: TOKEN, chats: [String(GROUP)] });
    const yaml = `
listen: 127.0.0.1:0
nodes:
${['a', 'b', 'c', 'd'].map((n) => `  - {name: node-${n}, url: "${sim.nodeUrl(`node-${n}`)}", interval: 1s, endpoints: [health], validator: false}`).join('\n')}
alerts:
  receivers:
    - {name: tg, telegram: {bot_token: "${TOKEN}", chat_id: ${GROUP}, api_url: "${bot.url}", commands: {user_ids: [${ONCALL}]}}}
`;
    const shards = [await startDaemon(yaml, { shard: { index: 0, count: 2 }, adminApi: false }), await startDaemon(yaml, { shard: { index: 1, count: 2 }, adminApi: false })];
    try {
      const status = (await ask(bot, '/status'))!;
      const watched = ['a', 'b', 'c', 'd'].filter((n) => inShard(`node-${n}`, { index: 0, count: 2 })).length;
      expect(status.text).toContain(`This replica is shard 0/2: it watches ${watched} of the fleet's 4 targets; the others' are not shown here.`);
      expect(status.text.split('\n')[0]).toMatch(new RegExp(`^${watched} targets?: `));
      expect((await ask(bot, '/silence node-a 1h'))!.text).toBe('Silences need the admin API: this avahealth runs without --web.enable-admin-api.');
      // one poller: no 409 Conflict from a second getUpdates
      expect(bot.errors.filter((e) => e.status === 409)).toEqual([]);
      expect(shards[1]!.logs()).not.toContain('telegram commands on');
      expect(shards[0]!.logs()).toContain('telegram commands on');
    } finally {
      for (const s of shards) await s.stop();
      await sim.close();
      await bot.close();
    }
  });
});
