/**
 * The Telegram receiver through the real daemon: a 429's `retry_after` honoured by the outbox, a
 * SIGKILL after the firing message, and after the restart the resolve sent as a reply to it (the
 * message id kept in state_dir); the bot token in no log line, state file or CLI output; and
 * `notify-test`.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outboxFile, replayJournal } from '../../src/alerts/outbox.js';
import { outboxOpSchema } from '../../src/alerts/persisted.js';
import { Journal } from '../../src/state/journal.js';
import { runCli, startCli } from '../helpers/cli.js';
import { allText } from '../helpers/files.js';
import { setScenario, startSim, waitFor, writeConfig } from '../helpers/harness.js';
import { startBotApi } from '../helpers/telegram.js';

const TOKEN = '7012345678:AAHk3-SECRETtokenPART_0123456789ab';
const CHAT = '-1001234567890';

describe('telegram through the daemon', () => {
  it('429 retry_after honoured; after a SIGKILL the resolve replies to the firing message; the token never shown', { timeout: 90_000 }, async () => {
    const sim = await startSim([{ name: 'validator-1', scenario: 'healthy' }]);
    const api = await startBotApi({ token: TOKEN, chats: [CHAT] });
    api.throttle.push(2);
    const file = writeConfig(`
listen: 127.0.0.1:0
state_dir: ./state
external_url: https://avahealth.example.com
nodes:
  - {name: validator-1, url: "${sim.nodeUrl('validator-1')}", interval: 1s, endpoints: [health]}
alerts:
  for_polls: 1
  receivers:
    - name: tg
      telegram: {bot_token: \${TG_TOKEN}, chat_id: ${CHAT}, message_thread_id: 7, api_url: "${api.url}"}
      matchers: {target: validator-1}
      min_severity: warning
`);
    const env = { TG_TOKEN: TOKEN };
    const stateDir = join(dirname(file), 'state');
    let daemon = startCli(['run', '--config', file, '--log.level', 'debug'], env);
    let emitted = '';
    try {
      await daemon.waitForOutput(/"address":"127\.0\.0\.1:\d+"/);
      await setScenario(sim, 'validator-1', 'network-down');
      await waitFor('the firing message, after the 429', () => api.sent.length === 1, 20_000);
      const [limited, delivered] = [api.requests[0]!, api.requests[1]!];
      expect(api.errors.map((e) => [e.status, e.description])).toEqual([[429, 'Too Many Requests: retry after 2']]);
      expect(delivered.at - limited.at).toBeGreaterThanOrEqual(2000);
      const firing = api.sent[0]!;
      expect(firing).toMatchObject({ chatId: Number(CHAT), threadId: 7 });
      expect(firing.text).toMatch(/^🟠 validator-1: C, P, X and network failing\n/);
      expect(firing.text).toMatch(/\n• validator-1: check C failing\nnot connected to enough stake: connected to \d+\.\d+%; required at least 80\.000000% \(AvalancheCheckFailing · warning\)\n/);
      expect(firing.html).toContain('<a href="https://avahealth.example.com/targets/validator-1">validator-1 on avahealth</a>');
      // its delivery mark and its message id on disk (the mark may lag a second: at-least-once)
      const journal = outboxFile(stateDir, 'tg');
      const queued = () => (existsSync(journal) ? replayJournal(new Journal(journal, outboxOpSchema).read({ repair: false }).ops).items.length : 1);
      await waitFor('the firing message noted and marked delivered', () => allText(stateDir).includes(` ${firing.messageId}"`) && queued() === 0, 10_000);
      daemon.child.kill('SIGKILL');
      await daemon.exit;
      emitted += daemon.output();

      daemon = startCli(['run', '--config', file, '--log.level', 'debug'], env);
      await daemon.waitForOutput(/alert states restored/);
      await setScenario(sim, 'validator-1', 'healthy');
      await waitFor('the resolve', () => api.sent.length === 2, 20_000);
      // not announced again after the restart: the second message is the resolve
      const resolve = api.sent[1]!;
      expect(resolve.text).toMatch(/^🟢 validator-1: C, P, X and network recovered\n• validator-1: C recovered\n\(AvalancheCheckFailing · resolved after \d+[smh]( \d+[smh])?\)\n/);
      expect(resolve.replyTo).toEqual({ message_id: firing.messageId, allow_sending_without_reply: true });
      expect(resolve.threadId).toBe(7);
      daemon.child.kill('SIGTERM');
      await daemon.exit;
      emitted += daemon.output();
      // the 429 was logged, in Telegram's words, with the token redacted everywhere
      expect(emitted).toContain('Telegram: Too Many Requests: retry after 2');
      emitted += allText(stateDir);
      for (const part of [TOKEN, TOKEN.split(':')[1]!, encodeURIComponent(TOKEN)]) expect(emitted.includes(part)).toBe(false);
    } finally {
      daemon.child.kill('SIGKILL');
      await sim.close();
      await api.close();
    }
  });

  it('notify-test: delivered, or Telegram\'s own reason without the token', async () => {
    const api = await startBotApi({ token: TOKEN, chats: ['@validator_alerts'] });
    try {
      const config = (chat: string) => writeConfig(`alerts:\n  receivers:\n    - {name: tg, telegram: {bot_token: "${TOKEN}", chat_id: "${chat}", api_url: "${api.url}"}}\n`);
      expect(await runCli(['notify-test', '--config', config('@validator_alerts'), '--receiver', 'tg'])).toMatchObject({ code: 0, stdout: 'test notification delivered to tg (telegram)\n' });
      expect(api.sent[0]!.text.split('\n')[0]).toBe('🟠 avahealth: avahealth test notification');
      const failed = await runCli(['notify-test', '--config', config('@nobody_here'), '--receiver', 'tg']);
      expect(failed).toMatchObject({ code: 1, stderr: 'test notification to tg failed: Telegram: Bad Request: chat not found\n' });
    } finally {
      await api.close();
    }
  });
});
