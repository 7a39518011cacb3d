/**
 * The demo fleet's exposition at a fixed clock, in both formats: the simulator (`npm run demo`'s
 * fleet, with the hosted APIs and chain data) and the probes → store → metrics view path, in this
 * process, with `Date` and `performance` frozen (vitest's fake clock; timers stay real) so every
 * timestamp, duration and period the simulator and the daemon derive is the same on every run.
 * Three rounds: NodeIDs learnt, then the validator, observer and baseline jobs have answers.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { MetricsView } from '../../src/metrics/view.js';
import { Poller } from '../../src/poller.js';
import { demoFleet, fleetConfigYaml } from '../../src/sim/fleet.js';
import type { SimNodeOptions } from '../../src/sim/node.js';
import { SimServer } from '../../src/sim/server.js';
import { Store } from '../../src/store.js';
import { bodyBytes } from '../../src/metrics/endpoint.js';

/** 2026-11-02T10:00:00Z: any fixed instant; the simulator derives its periods and heights from it. */
export const DEMO_CLOCK_MS = Date.UTC(2026, 10, 2, 10, 0, 0);

export interface DemoExposition {
  text: string;
  openmetrics: string;
}

export async function demoExposition(configExtra = ''): Promise<DemoExposition> {
  return fleetExposition(demoFleet(), (sim) => `${fleetConfigYaml(demoFleet(), { baseUrl: sim.baseUrl })}${configExtra}`);
}

/** A simulated fleet's exposition at the fixed clock, polled `rounds` times with the config `yaml` makes (a `state_dir` is added). */
export async function fleetExposition(fleet: SimNodeOptions[], yaml: (sim: SimServer) => string, rounds = 3): Promise<DemoExposition> {
  vi.useFakeTimers({ toFake: ['Date', 'performance'], now: DEMO_CLOCK_MS });
  const sim = new SimServer(fleet.map((n) => ({ periodMs: 3_600_000, ...n })));
  await sim.listen(0);
  try {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-golden-'));
    const config = parseConfig(`${yaml(sim)}\nstate_dir: ${JSON.stringify(join(dir, 'state'))}\n`, join(dir, 'config.yaml'));
    const store = new Store();
    const view = new MetricsView(config, { defaultMetrics: false });
    view.attach(store);
    const poller = new Poller(config, store, createLogger({ level: 'silent', format: 'json' }));
    try {
      for (let round = 0; round < rounds; round++) await poller.round();
    } finally {
      await poller.close();
    }
    const scrape = async (accept?: string) => (await bodyBytes((await view.scrape(accept ? { accept } : {})).body)).toString('utf8');
    return { text: await scrape(), openmetrics: await scrape('application/openmetrics-text;version=1.0.0') };
  } finally {
    await sim.close();
    vi.useRealTimers();
  }
}

/** What a user sees of an exposition, order aside: the family headers, and each sample's name, labels (sorted) and value. */
export function exposedSet(text: string): { headers: string[]; samples: string[] } {
  const headers: string[] = [];
  const samples: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      headers.push(line);
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`unparseable exposition line: ${line}`);
    const labels = [...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => `${k}="${v}"`);
    // the runtime's version and the checkout's revision are the labels that differ between machines and commits
    const normal = labels.map((l) => (m[1] === 'avahealth_build_info' && /^(nodejs_version|revision)=/.test(l) ? l.replace(/=.*/, '="*"') : l)).sort();
    samples.push(`${m[1]}{${normal.join(',')}} ${m[3]}`);
  }
  return { headers: headers.sort(), samples: samples.sort() };
}
