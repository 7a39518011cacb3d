/**
 * Validator polling at scale (#13 "Cost"): 1,000 simulated nodes at the default intervals (health
 * every 15s, validator every 60s), once with the validator poll off and once on. Reports whether
 * every target kept its schedule (no skipped polls, every health probe succeeding), the validator
 * calls made, CPU, RSS and event-loop delay. `npx tsx bench/validator.ts [--nodes 1000] [--seconds 150]`
 * (after `npm run build`); results go to bench/RESULTS.md by hand.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { cpuSeconds, freePort, rssMiB, sleep, spawnDaemon, stop, waitReady } from './lib.js';

const ROOT = new URL('../', import.meta.url).pathname;
const { values: args } = parseArgs({ options: { nodes: { type: 'string', default: '1000' }, seconds: { type: 'string', default: '150' } } });
const NODES = Number(args.nodes);
const SECONDS = Number(args.seconds);
const DIR = mkdtempSync(join(tmpdir(), 'avahealth-bench-validator-'));

async function run(validator: boolean) {
  const simPort = await freePort();
  const sim = spawn(process.execPath, ['dist/cli.js', 'simulate', '--nodes', String(NODES), '--port', String(simPort), '--period', '30s'], { stdio: 'ignore', cwd: ROOT });
  for (let up = false; !up; await sleep(100)) up = await request(`http://127.0.0.1:${simPort}/sim/nodes`).then((r) => (r.body.dump(), r.statusCode === 200), () => false);
  const file = join(DIR, `validator-${validator}.yaml`);
  const nodes = Array.from({ length: NODES }, (_, i) => `  - {name: node-${i + 1}, url: "http://127.0.0.1:${simPort}/nodes/node-${i + 1}"}`).join('\n');
  writeFileSync(file, `state_dir: ./state-${validator}\n${validator ? '' : 'defaults: {validator: false}\n'}nodes:\n${nodes}\n`);
  const port = await freePort();
  const daemon = spawnDaemon(file, port);
  await waitReady(port, 300_000);
  const cpuStart = cpuSeconds(daemon.pid!);
  await sleep(SECONDS * 1000);
  const cpu = cpuSeconds(daemon.pid!) - cpuStart;
  const body = await request(`http://127.0.0.1:${port}/metrics`).then((r) => r.body.text());
  const samples = body.split('\n').filter((l) => l.startsWith('avahealth_'));
  const count = (re: RegExp) => samples.filter((l) => re.test(l));
  const sum = (lines: string[]) => lines.reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(body)?.[1]);
  const result = {
    validator,
    nodes: NODES,
    seconds: SECONDS,
    healthProbesOk: count(/^avahealth_probe_success\{[^}]*endpoint="health"[^}]*\} 1$/).length,
    validatorProbesOk: count(/^avahealth_probe_success\{[^}]*endpoint="validator"[^}]*\} 1$/).length,
    skippedPolls: sum(count(/^avahealth_scheduler_skipped_polls_total\{/)),
    failures: sum(count(/^avahealth_probe_failures_total\{/)),
    rewardingStakeSeries: count(/^avahealth_validator_uptime_rewarding_stake_ratio\{/).length,
    cpuPercent: Math.round((cpu / SECONDS) * 1000) / 10,
    rssMiB: Math.round(rssMiB(daemon.pid!)),
    eventLoopDelayP99ms: Math.round(metric('nodejs_eventloop_lag_p99_seconds') * 10_000) / 10,
  };
  await stop(daemon);
  sim.kill('SIGTERM');
  return result;
}

const off = await run(false);
console.log(JSON.stringify(off));
const on = await run(true);
console.log(JSON.stringify(on));
