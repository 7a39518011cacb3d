import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimServer } from '../../src/sim/server.js';
import { runCli } from '../helpers/cli.js';
import { writeConfig } from '../helpers/harness.js';

describe('avahealth check reports height lag with chain data', () => {
  let sim: SimServer;

  beforeAll(async () => {
    // heights stand still: one block an hour
    sim = new SimServer(
      [
        { name: 'ahead', scenario: 'healthy', periodMs: 3_600_000 },
        { name: 'behind', scenario: 'lagging', lagBlocks: 120, periodMs: 3_600_000 },
        { name: 'far', scenario: 'lagging', lagBlocks: 700, periodMs: 3_600_000 },
      ],
      { blockMs: 3_600_000 },
    );
    await sim.listen(0);
  });
  afterAll(async () => {
    await sim?.close();
  });

  const config = (nodes: string[], extra = '') =>
    writeConfig(`
nodes:
${nodes.map((n) => `  - {name: ${n}, url: "${sim.nodeUrl(n)}"}`).join('\n')}
services:
  - {name: data-api, kind: data-api, url: "${sim.serviceUrl('data-api')}"}
chain_data: {}
${extra}`);

  it('WARNING at the rule threshold (50 blocks), CRITICAL at the critical one (500)', async () => {
    const warning = await runCli(['check', '--config', config(['ahead', 'behind'])]);
    expect(warning.code).toBe(1);
    expect(warning.stdout).toMatch(/^WARNING - behind warning \(C 120 blocks behind, P 120 blocks behind, X 120 blocks behind\) \|/);

    const critical = await runCli(['check', '--config', config(['ahead', 'behind', 'far']), '--format', 'json']);
    expect(critical.code).toBe(2);
    const result = JSON.parse(critical.stdout);
    const far = result.targets.find((t: { name: string }) => t.name === 'far');
    expect(far).toMatchObject({ state: 'unhealthy', lag: { C: 700, P: 700, X: 700 } });
    expect(result.targets.find((t: { name: string }) => t.name === 'ahead')).toMatchObject({ state: 'healthy', lag: { C: 0 } });
  });

  it("follows the rule's tuning: a higher threshold is OK, a disabled rule is ignored", async () => {
    const tuned = await runCli(['check', '--config', config(['ahead', 'behind'], 'alerts:\n  rules:\n    AvalancheNodeHeightLag: {threshold: 200}\n')]);
    expect(tuned.code).toBe(0);
    const disabled = await runCli(['check', '--config', config(['ahead', 'far'], 'alerts:\n  targets:\n    far: {rules: {AvalancheNodeHeightLag: {disabled: true}}}\n')]);
    expect(disabled.code).toBe(0);
  });
});
