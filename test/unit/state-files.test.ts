import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AlertEngine } from '../../src/alerts/engine.js';
import { Outbox } from '../../src/alerts/outbox.js';
import { ConfigError } from '../../src/config/errors.js';
import { parseConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { readJsonFile, writeJsonAtomic } from '../../src/state/atomic.js';
import { probeMemory } from '../../src/state/ledger.js';

function logged() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString()));
  return { log: createLogger({ level: 'info', format: 'json', destination: stream }), text: () => text };
}

describe('state files', () => {
  it('are written atomically and read back; garbage is set aside, not fatal', () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-state-'));
    const file = join(dir, 'x.json');
    writeJsonAtomic(file, { version: 1, items: [1, 2] });
    const isItems = z.object({ version: z.number(), items: z.array(z.number()) });
    expect(readJsonFile(file, isItems)).toEqual({ status: 'ok', value: { version: 1, items: [1, 2] } });
    expect(readdirSync(dir)).toEqual(['x.json']); // no temporary file left behind
    writeFileSync(file, '{"version":1,"items":[1,2');
    const read = readJsonFile(file, isItems);
    expect(read.status).toBe('corrupt');
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/^x\.json\.corrupt-\d{4}-/)]);
    expect(readJsonFile(join(dir, 'missing.json'), isItems)).toEqual({ status: 'missing' });
    writeFileSync(file, '{"version":1,"items":[1,null]}');
    expect(readJsonFile(file, isItems)).toMatchObject({ status: 'corrupt', error: expect.stringContaining('items.1: ') });
  });

  it("a reader that does not own the directory (`avahealth check`) reads the probes' ledgers and never writes or moves them", () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-state-'));
    const daemon = probeMemory(dir);
    // a fleet's first polls change thousands of entries: written together, not once each
    for (let i = 2; i < 2000; i++) daemon.settling.set(`validator-${i}`, { settlingSince: i });
    for (let i = 2; i < 2000; i++) daemon.settling.set(`validator-${i}`, undefined);
    daemon.settling.set('validator-1', { settlingSince: 100, settlingLastAt: 130, settlingWeighted: 0.41 });
    expect(readdirSync(dir)).toEqual([]);
    daemon.settling.flush();
    const written = readFileSync(join(dir, 'uptime-settling.json'), 'utf8');
    const check = probeMemory(dir, true);
    expect(check.settling.get('validator-1')).toEqual({ settlingSince: 100, settlingLastAt: 130, settlingWeighted: 0.41 });
    check.settling.set('validator-1', undefined);
    check.settling.set('validator-2', { settlingSince: 1 });
    expect(readFileSync(join(dir, 'uptime-settling.json'), 'utf8')).toBe(written);
    writeFileSync(join(dir, 'periods.json'), '{"version":1,"nodes":');
    expect(probeMemory(dir, true).periods.problem).toMatch(/periods\.json unreadable .*; not used$/);
    expect(readdirSync(dir).sort()).toEqual(['periods.json', 'uptime-settling.json']);
  });

  it('a structurally valid but wrong alert state or silences file is set aside with a message, not a crash', () => {
    for (const wrong of ['{"version":1,"alerts":[null]}', '{"version":1,"alerts":[{"key":"k","target":7}]}', '[]', 'null']) {
      const dir = mkdtempSync(join(tmpdir(), 'avahealth-state-'));
      writeFileSync(join(dir, 'alerts.json'), wrong);
      writeFileSync(join(dir, 'silences.json'), wrong.replace('alerts', 'silences'));
      const config = parseConfig(`state_dir: ${dir}\n`, join(dir, 'c.yaml'), {});
      const { log, text } = logged();
      const engine = new AlertEngine(config, { log });
      expect(engine.list()).toEqual([]);
      expect(engine.silences.list()).toEqual([]);
      expect(text()).toContain('alert state file unreadable; set aside, starting empty');
      expect(text()).toContain('silences file unreadable; set aside');
      expect(readdirSync(dir).filter((f) => f.includes('.corrupt-'))).toHaveLength(2);
    }
  });

  it('a corrupt alert state file is set aside; unreadable outbox lines are skipped one by one, the rest kept', () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-state-'));
    mkdirSync(join(dir, 'outbox'));
    writeFileSync(join(dir, 'alerts.json'), 'not json at all');
    const queued = { add: { batch: { id: 'kept', target: 't', createdAt: 0, alerts: [] }, attempts: 0, nextAttemptAt: 0 } };
    writeFileSync(join(dir, 'outbox', 'hook.jsonl'), `{"add": {"batch"\nnot json at all\n${JSON.stringify(queued)}\n`);
    const config = parseConfig(`state_dir: ${dir}\nalerts:\n  receivers:\n    - {name: hook, webhook: {url: "http://127.0.0.1:9/hook"}}\n`, join(dir, 'c.yaml'), {});
    const { log, text } = logged();
    const engine = new AlertEngine(config, { log });
    const outbox = new Outbox(config.alerts.receivers[0]!, dir, async () => undefined, () => '', { delivered: () => undefined, failed: () => undefined, queueLength: () => undefined }, log);
    expect(engine.list()).toEqual([]);
    expect(outbox.length).toBe(1);
    expect(text()).toContain('alert state file unreadable; set aside, starting empty');
    expect(text()).toContain('outbox journal lines unreadable; skipped');
    expect(text()).toContain('"lines":[1,2]');
    expect(readdirSync(dir).some((f) => f.startsWith('alerts.json.corrupt-'))).toBe(true);
    expect(readdirSync(join(dir, 'outbox'))).toEqual(['hook.jsonl']);
  });
});

describe('receiver configuration', () => {
  const problems = (yaml: string) => {
    try {
      parseConfig(yaml, 'c.yaml', {});
    } catch (err) {
      return (err as ConfigError).message;
    }
    return '';
  };

  it('needs exactly one kind, an http(s) url, and a routing key for PagerDuty', () => {
    expect(problems('alerts:\n  receivers:\n    - {name: x}\n')).toBe('c.yaml:3:7: receiver "x" needs exactly one of webhook, slack, discord, pagerduty, alertmanager, telegram, email');
    expect(problems('alerts:\n  receivers:\n    - {name: x, slack: {url: "http://a"}, discord: {url: "http://b"}}\n')).toContain('(has slack, discord)');
    expect(problems('alerts:\n  receivers:\n    - {name: x, webhook: {}}\n')).toBe('c.yaml:3:26: receiver "x": webhook needs an http(s) url (url or url_file)');
    expect(problems('alerts:\n  receivers:\n    - {name: x, pagerduty: {}}\n')).toBe('c.yaml:3:28: receiver "x": pagerduty needs routing_key or routing_key_file');
    expect(problems('alerts:\n  receivers:\n    - {name: x, slack: {url: "http://a"}, matchers: {target: "~(unclosed"}}\n')).toContain('invalid regular expression');
  });

  it('the three-line webhook receiver from the docs works as written', () => {
    const config = parseConfig('state_dir: ./data\nalerts:\n  receivers:\n    - name: oncall\n      webhook: {url: http://127.0.0.1:9999/hook, secret: ${WEBHOOK_SECRET}}\n', '/tmp/c.yaml', { WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
    expect(config.alerts.receivers[0]).toMatchObject({ name: 'oncall', kind: 'webhook', settings: { url: 'http://127.0.0.1:9999/hook', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } });
    expect(config.stateDir).toBe('/tmp/data');
  });
});
