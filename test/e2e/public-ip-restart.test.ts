/**
 * A validator's public IP change survives a restart of avahealth (issue #44). info.getNodeIP answers
 * the IP:port the node advertises to its peers (api/info/service.go GetNodeIP; the resolver of
 * --public-ip-resolution-service moves it, utils/dynamicip/updater.go), and the node says only its
 * IP now, never the one before: a daemon that forgot the last IP it saw could not tell a change
 * that happened while it was stopped. The last IP is kept in state_dir (public-ips.json), so the
 * first poll after the restart tells it; a missing or unreadable file only means "not known".
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from '../helpers/fleet.js';
import { sample, scrape, setScenario, waitFor } from '../helpers/harness.js';

const MOVED = '198.51.100.23:9651';
const MOVED_AGAIN = '198.51.100.42:9651';

describe('a public IP change while avahealth was stopped', () => {
  let fleet: Fleet;

  beforeAll(async () => {
    fleet = await startFleet({
      nodes: [{ name: 'val', scenario: 'healthy', periodMs: 3_600_000 }],
      config: ({ hook, node }) => `
defaults: {interval: 1s, timeout: 1500ms, endpoints: [health], validator: {interval: 1s, network: false}}
nodes:
${node('val')}
alerts:
  for_polls: 1
  resolve_polls: 1
  receivers:
    - {name: oncall, webhook: {url: "${hook}"}}
`,
    });
  }, 60_000);

  afterAll(() => fleet?.stop());

  const told = (status: string) => fleet.told({ path: '/hook', status, alertname: 'AvalancheValidatorPublicIpChanged', target: 'val' });
  const remembered = (): { ip?: string } | undefined => {
    try {
      return (JSON.parse(readFileSync(join(fleet.stateDir, 'public-ips.json'), 'utf8')) as { nodes: Record<string, { ip: string }> }).nodes.val;
    } catch {
      return undefined;
    }
  };

  it('is told at the first poll of the new daemon, from the IP kept in state_dir', { timeout: 120_000 }, async () => {
    const before = fleet.sim.nodes.get('val')!.economics.publicIp;
    // written within a second of the first reading (state/ledger.ts)
    await waitFor('the IP remembered in state_dir', () => remembered()?.ip === before, 20_000).catch(fleet.explain);
    expect(told('firing')).toEqual([]);

    await fleet.restart('SIGTERM', () => setScenario(fleet.sim, 'val', 'healthy', { publicIp: MOVED }));
    const alert = await waitFor('PublicIpChanged after the restart', () => told('firing')[0], 30_000).catch(fleet.explain);
    expect(alert.labels.severity).toBe('warning');
    expect(alert.annotations.summary).toMatch(new RegExp(`^val: public IP changed from ${before.replaceAll('.', '\\.')} to ${MOVED.replaceAll('.', '\\.')} \\(`));
    expect(sample(await scrape(fleet.url), 'avahealth_validator_public_ip_changed_timestamp_seconds', { target: 'val' })).toBeGreaterThan(0);
    await waitFor('the new IP remembered', () => remembered()?.ip === MOVED, 20_000);
  });

  it('an unreadable file means "not known": no change is made up, and the next one is told again', { timeout: 120_000 }, async () => {
    await fleet.restart('SIGTERM', async () => {
      writeFileSync(join(fleet.stateDir, 'public-ips.json'), '{"version":1,"nodes":{"val":');
      await setScenario(fleet.sim, 'val', 'healthy', { publicIp: MOVED_AGAIN });
    });
    // the first reading after an unreadable file is the first ever: nothing to compare it with
    await waitFor('the IP read and kept again', () => remembered()?.ip === MOVED_AGAIN, 30_000).catch(fleet.explain);
    expect(told('firing').filter((a) => a.annotations.summary!.includes(MOVED_AGAIN))).toEqual([]);
    expect(fleet.daemon.output()).toMatch(/public-ips\.json unreadable/);
    await setScenario(fleet.sim, 'val', 'healthy', { publicIp: MOVED });
    await waitFor('the next change told', () => told('firing').find((a) => a.annotations.summary!.includes(`from ${MOVED_AGAIN} to ${MOVED}`)), 30_000).catch(fleet.explain);
  });
});
