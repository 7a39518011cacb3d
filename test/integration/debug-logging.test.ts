import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '../../src/sim/server.js';
import { startCapture } from '../helpers/capture.js';
import { startCli } from '../helpers/cli.js';
import { startSim, writeConfig } from '../helpers/harness.js';

const SECRETS = { NODE_TOKEN: 'bt-DEBUG-SECRET-1234', DATA_API_KEY: 'dk-DEBUG-SECRET-5678', HOOK_TOKEN: 'hk-DEBUG-SECRET-9012' };

type Line = Record<string, unknown> & { level: number; msg: string };

describe('debug logging says something', () => {
  let sim: SimServer;
  let file: string;
  let hook: Awaited<ReturnType<typeof startCapture>>;

  beforeAll(async () => {
    sim = await startSim([
      { name: 'n', scenario: 'healthy' },
      { name: 'down', scenario: 'network-down' },
    ]);
    hook = await startCapture();
    file = writeConfig(`
listen: 127.0.0.1:0
state_dir: ./state
nodes:
  - {name: n, url: "${sim.nodeUrl('n')}", interval: 1s, bearer_token: \${NODE_TOKEN}}
  - {name: down, url: "${sim.nodeUrl('down')}", interval: 1s, endpoints: [health]}
services:
  - {name: data-api, kind: data-api, url: "${sim.serviceUrl('data-api')}", api_key: \${DATA_API_KEY}, interval: 1s}
chain_data: {}
alerts:
  for_polls: 1
  receivers:
    - {name: oncall, webhook: {url: "${hook.url}/hook/\${HOOK_TOKEN}"}}
`);
  });
  afterAll(async () => {
    await sim?.close();
    await hook?.close();
  });

  async function run(level: string, until: (lines: Line[]) => boolean): Promise<{ lines: Line[]; text: string }> {
    const daemon = startCli(['run', '--config', file, '--log.level', level], SECRETS);
    try {
      await daemon.waitForOutput(/"msg":"avahealth started"/);
      const parse = () => daemon.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Line);
      const deadline = Date.now() + 15_000;
      while (!until(parse())) {
        if (Date.now() > deadline) throw new Error(`not logged in time:\n${daemon.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return { lines: parse(), text: daemon.output() };
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exit;
    }
  }

  const polls = (lines: Line[]) => lines.filter((l) => l.msg === 'poll');

  it('debug: one line per polled endpoint (target, endpoint, status, duration) and per chain-data refresh; no secret', async () => {
    const { lines, text } = await run('debug', (ls) => polls(ls).filter((l) => l.target === 'n').length >= 6 && ls.some((l) => l.msg === 'chain data refreshed') && ls.some((l) => l.msg === 'notification delivery attempt'));
    const n = polls(lines).filter((l) => l.target === 'n');
    // besides: `baseline` and `observed` (the fleet as observers), each once it has something to ask
    expect(new Set(n.map((l) => l.endpoint).filter((e) => e !== 'observed' && e !== 'baseline'))).toEqual(new Set(['health', 'readiness', 'liveness', 'validator']));
    for (const line of polls(lines)) {
      expect(line.level).toBe(20);
      expect(line).toMatchObject({ target: expect.any(String), endpoint: expect.any(String), status: expect.any(Number), durationSeconds: expect.any(Number), ok: expect.any(Boolean) });
    }
    expect(polls(lines).find((l) => l.target === 'down')).toMatchObject({ endpoint: 'health', status: 503, ok: true });
    expect(polls(lines).find((l) => l.target === 'data-api')).toMatchObject({ endpoint: 'health-check', status: 200, ok: true });
    expect(lines.find((l) => l.msg === 'chain data refreshed')).toMatchObject({ level: 20, source: 'chaindata', chains: 1, errors: 0 });
    expect(lines.find((l) => l.msg === 'notification delivery attempt')).toMatchObject({ level: 20, receiver: 'oncall', target: 'down', attempt: 1, alerts: expect.any(Number) });
    expect(lines.some((l) => l.msg === 'http request')).toBe(false);
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
  });

  it('trace: request details (method, URL, header names, status, size) with secrets redacted', async () => {
    const { lines, text } = await run('trace', (ls) => ls.filter((l) => l.msg === 'http request').length >= 8);
    const requests = lines.filter((l) => l.msg === 'http request');
    expect(requests[0]).toMatchObject({ level: 10, method: expect.stringMatching(/^(GET|POST)$/), url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//), status: expect.any(Number), bytes: expect.any(Number) });
    const toNode = requests.find((l) => String(l.url).includes('/ext/health'))!;
    expect(toNode.headers).toContain('authorization');
    expect(JSON.stringify(toNode)).not.toContain('Bearer');
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
  });
});
