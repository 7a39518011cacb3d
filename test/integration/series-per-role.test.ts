/**
 * What a node costs in series, by role, measured on the simulator (which answers as AvalancheGo's
 * source does) at a fixed clock: an RPC node (`validator: false`), a Primary Network validator, an
 * L1 validator, each with the fleet as observers (every validator seen by 16 other fleet
 * validators), with the defaults and with the knobs of `metrics:` that cut the most. The table in
 * docs/metrics.md is this test's output: it fails when the table and the measure disagree, and says
 * what the table should read.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { l1SubnetIdOf } from '../../src/sim/fleet.js';
import type { SimNodeOptions } from '../../src/sim/node.js';
import { fleetExposition } from '../helpers/demo-exposition.js';
import { parseExposition, type Sample } from '../helpers/harness.js';

const VALIDATORS = 17; // each has 16 others: the most observers a validator is asked about
const FLEET: SimNodeOptions[] = [
  { name: 'rpc', scenario: 'healthy', validator: false },
  ...Array.from({ length: VALIDATORS }, (_, i) => ({ name: `validator-${i + 1}`, scenario: 'healthy' as const })),
  { name: 'l1-validator', scenario: 'healthy', l1: true },
];
const ROLES = [
  ['RPC node (`validator: false`)', 'rpc'],
  // not one of the three that read the network baseline (their own probe series of it: 4 more)
  ['Primary Network validator', 'validator-9'],
  ['L1 validator (one L1 validation)', 'l1-validator'],
] as const;

function configOf(baseUrl: string, metrics = ''): string {
  const node = (n: SimNodeOptions) => {
    const extra = n.validator === false ? ', validator: false' : n.l1 ? `, validator: {subnets: ["${l1SubnetIdOf(n.name)}"]}` : '';
    return `  - {name: ${n.name}, url: "${baseUrl}/nodes/${n.name}"${extra}}`;
  };
  return `defaults: {interval: 5s, validator: {interval: 5s, network: {interval: 15s}}}\n${metrics}nodes:\n${FLEET.map(node).join('\n')}\n`;
}

/** The series of one node: its own, and those the fleet's observers report about it (the network baseline's are per network, below). */
const seriesOf = (samples: Sample[], target: string) => samples.filter((s) => s.labels.target === target && s.name.startsWith('avahealth_'));

async function measure(metrics = ''): Promise<{ samples: Sample[] }> {
  const { text } = await fleetExposition(FLEET, (sim) => configOf(sim.baseUrl, metrics));
  return { samples: parseExposition(text) };
}

const KNOBS = 'metrics:\n  check_details: failing\n  deny: ["avahealth_validator_observed_.*"]\n';

describe('series per node, by role (docs/metrics.md)', () => {
  it('are as the table in docs/metrics.md says, with the defaults and with the knobs', { timeout: 120_000 }, async () => {
    const defaults = await measure();
    const knobs = await measure(KNOBS);
    const observed = (samples: Sample[], target: string) => seriesOf(samples, target).filter((s) => s.name.startsWith('avahealth_validator_observed_')).length;
    const checks = (samples: Sample[], target: string) => seriesOf(samples, target).filter((s) => s.name.startsWith('avahealth_node_check_')).length;
    const rows = ROLES.map(([role, target]) => {
      const all = seriesOf(defaults.samples, target).length;
      const cut = seriesOf(knobs.samples, target).length;
      return `| ${role} | ${all} | ${checks(defaults.samples, target)} | ${observed(defaults.samples, target)} | ${cut} |`;
    });
    const baseline = defaults.samples.filter((s) => s.name.startsWith('avahealth_network_observed_') || s.name === 'avahealth_network_connected_stake_ratio').length;
    const table = [
      '| role | series (defaults) | of which per-check | of which the fleet as observers | with `check_details: failing` and the observer families denied |',
      '|---|---|---|---|---|',
      ...rows,
      `| the network baseline, per network (3 observers) | ${baseline} | | | ${baseline} |`,
    ].join('\n');
    const docs = readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8');
    expect(docs.includes(table), `docs/metrics.md's table of series per role should read:\n${table}\n`).toBe(true);
    // the measure measures something: every role has its health series, validators their observers
    expect(seriesOf(defaults.samples, 'rpc').some((s) => s.name === 'avahealth_node_check_passing')).toBe(true);
    expect(observed(defaults.samples, 'validator-9')).toBe(16 * 3);
    expect(observed(knobs.samples, 'validator-9')).toBe(0);
    expect(seriesOf(defaults.samples, 'l1-validator').some((s) => s.name === 'avahealth_l1_validator_balance_avax')).toBe(true);
    // a passing check keeps its passing series under check_details: failing
    expect(seriesOf(knobs.samples, 'rpc').filter((s) => s.name === 'avahealth_node_check_passing').length).toBe(
      seriesOf(defaults.samples, 'rpc').filter((s) => s.name === 'avahealth_node_check_passing').length,
    );
  });
});
