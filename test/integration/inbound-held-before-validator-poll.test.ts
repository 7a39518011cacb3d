/**
 * A validator whose staking port is closed: AvalancheGo's own network check fails with "primary
 * network validator has no inbound connections" (network/network.go HealthCheck; the grace in
 * network/no_ingress_conn_alert.go), and AvalancheValidatorUnreachableByPeers pages it with the port
 * to open, holding back AvalancheCheckFailing{check="network"}. That held only once the node's
 * validator poll had reported: a new shard owner's (or a fresh daemon's) first node poll paged the
 * failing check, which resolved as the validator poll's first report came, before the cause paged
 * (seeded trust week 4). The node's own poll now says the fleet observes it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuleStage } from '../../src/alerts/verdicts.js';
import { parseConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import type { TargetObservation } from '../../src/model/observation.js';
import { parseHealthReport } from '../../src/parse/avalanchego.js';
import type { SimServer } from '../../src/sim/server.js';
import type { TargetState } from '../../src/store.js';
import { startDaemon, startSim, waitForRounds } from '../helpers/harness.js';
import { update } from '../helpers/states.js';

describe('a closed staking port before the validator poll reports', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim([{ name: 'closed', scenario: 'inbound-closed' }]);
  });
  afterAll(async () => sim?.close());

  const verdictOn = async (validatorPoll: boolean) => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-inbound-'));
    const config = parseConfig(`nodes:\n  - {name: closed, url: "${sim.nodeUrl('closed')}", validator: ${validatorPoll ? '{}' : 'false'}}\n`, join(dir, 'c.yaml'), {});
    const answer = await request(`${sim.nodeUrl('closed')}/ext/health`);
    const parsed = parseHealthReport(await answer.body.json());
    if (!parsed.ok) throw new Error(parsed.error);
    // The node's own poll as probes/node.ts reports it, and nothing from its validator poll yet.
    const observation: TargetObservation = { target: 'closed', kind: 'node', at: 0, endpoints: [{ endpoint: 'health', view: 'all', ok: true, httpStatus: answer.statusCode, durationSeconds: 0.01, at: 0, report: parsed.value }], ...(validatorPoll ? { fleetObserves: true as const } : {}) };
    const state: TargetState = { observation, lastSuccessAt: new Map(), history: [], rounds: 1, jobs: new Map([['node', observation]]), latest: observation };
    const rules = new RuleStage(config, createLogger({ level: 'silent', format: 'json', destination: new PassThrough() }));
    const [verdict] = rules.updated(update('node', config.nodes[0]!, state));
    return verdict!.evaluation.conditions.map((c) => `${c.alertname}${c.identity.check ? `{${c.identity.check}}` : ''}`);
  };

  it('holds the failing network check back from the first poll when the fleet observes the node', async () => {
    const held = await verdictOn(true);
    expect(held).not.toContain('AvalancheCheckFailing{network}');
    expect(held).not.toContain('AvalancheNodeUnhealthy');
  });

  it('pages it as a failing check where no validator poll will speak for it', async () => {
    expect(await verdictOn(false)).toContain('AvalancheCheckFailing{network}');
  });

  it("the node's own poll says so, for a validator poll configured only", async () => {
    const d = await startDaemon(`listen: 127.0.0.1:0\nstate_dir: ${mkdtempSync(join(tmpdir(), 'avahealth-inbound-'))}\ndefaults: {interval: 1s, endpoints: [health]}\nnodes:\n  - {name: closed, url: "${sim.nodeUrl('closed')}"}\n  - {name: rpc, url: "${sim.nodeUrl('closed')}", validator: false}\n`);
    try {
      await waitForRounds(d, 'rpc', 1);
      await waitForRounds(d, 'closed', 1);
      expect(d.daemon.store.get('closed')?.jobs.get('node')?.fleetObserves).toBe(true);
      expect(d.daemon.store.get('rpc')?.jobs.get('node')?.fleetObserves).toBeUndefined();
    } finally {
      await d.stop();
    }
  });
});
