/**
 * A paid validator is never shown unhealthy at its period's end: the built daemon against simulated
 * nodes whose periods end while it watches, as AvalancheGo ends them
 * (vms/platformvm/txs/executor/proposal_tx_executor.go, played by src/sim/periods.ts: the validator
 * stays listed past its endTime until the reward proposal, then is removed (a plain validation,
 * paid by reward UTXOs) or starts its next cycle at the old endTime (an auto-renewed one whose vote
 * committed)). From endTime on, the status page, /api/v1/status and /api/v1/targets/<name> never
 * say unhealthy; AvalancheValidatorEndingSoon, critical before the end, ends with "paid" (told as a
 * second resolve of the same incident when its first said "outcome not known yet"). The Data API is
 * read once, before the end, and not again while the test watches (chain_data every 10 minutes): a
 * validation it still lists as current past its end must not make the validator look unhealthy,
 * since the node's own platform.getCurrentValidators knows within a poll.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from '../helpers/fleet.js';
import { get, waitFor } from '../helpers/harness.js';

type Status = { targets: Array<{ name: string; state: string }> };

/** Long enough for the daemon to start and see each period before it ends. */
const ENDS_IN = 25;
/** How long after the end the views are read. */
const WATCH_AFTER_END_SECONDS = 20;
const TARGETS = ['paid', 'renewed'];

describe("a paid validator at its period's end", () => {
  let fleet: Fleet;

  beforeAll(async () => {
    fleet = await startFleet({
      nodes: [
        // An hour-long period: its last 1/14 (about 4 minutes) is inside EndingSoon's critical window.
        { name: 'paid', scenario: 'healthy', validationEndsIn: ENDS_IN, validationStartedAgo: 3600 - ENDS_IN, periodMs: 3_600_000 },
        { name: 'renewed', scenario: 'auto-renewing', validationEndsIn: ENDS_IN, validationStartedAgo: 3600 - ENDS_IN, periodMs: 3_600_000 },
      ],
      prepare: (sim) => {
        sim.nodes.get('renewed')!.economics.nextPeriodSeconds = 3600;
      },
      config: ({ sim, hook, node }) => `
defaults: {interval: 1s, timeout: 2s, endpoints: [health], validator: {interval: 1s, network: false}}
nodes:
${TARGETS.map((name) => node(name)).join('\n')}
services:
  - {name: data-api, kind: data-api, url: "${sim.serviceUrl('data-api')}"}
chain_data: {interval: 10m}
alerts:
  for_polls: 1
  receivers:
    - {name: oncall, webhook: {url: "${hook}"}}
`,
    });
  }, 60_000);

  afterAll(() => fleet?.stop());

  it('is never shown unhealthy from its endTime on, and its ending alert ends with "paid"', { timeout: 90_000 }, async () => {
    const ends = new Map(TARGETS.map((name) => [name, fleet.sim.nodes.get(name)!.validationEndsAt]));
    const endsAt = Math.max(...ends.values());
    const shown: Array<{ at: number; where: string; target: string; state: string }> = [];
    // the page's first badge is the target's state
    const page = (html: string) => /class="badge (\w+)"/.exec(html)?.[1] ?? 'no badge';
    // the fleet page's row of the target: its class is the target's state
    const row = (html: string, name: string) => new RegExp(`<tr class="(\\w+)">\\s*<td data-label="Node"><a href="/targets/${name}">`).exec(html)?.[1] ?? 'no row';
    await waitFor('the Data API read once', async () => /^avahealth_chain_data_last_refresh_timestamp_seconds [1-9]/m.test((await get(`${fleet.url}/metrics`)).body), 15_000);
    while (Date.now() / 1000 < endsAt + WATCH_AFTER_END_SECONDS) {
      const at = Date.now() / 1000;
      const status = JSON.parse((await get(`${fleet.url}/api/v1/status`)).body) as Status;
      const fleetPage = (await get(`${fleet.url}/`)).body;
      for (const name of TARGETS) {
        shown.push({ at, where: '/', target: name, state: row(fleetPage, name) });
        shown.push({ at, where: '/api/v1/status', target: name, state: status.targets.find((t) => t.name === name)?.state ?? 'absent' });
        shown.push({ at, where: '/api/v1/targets', target: name, state: (JSON.parse((await get(`${fleet.url}/api/v1/targets/${name}`)).body) as { state: string }).state });
        shown.push({ at, where: '/targets', target: name, state: page((await get(`${fleet.url}/targets/${name}`)).body) });
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const ended = (name: string) => ends.get(name)!;
    // each period really ended while watched (the renewed one's next cycle started at the old end)
    expect(shown.filter((s) => s.at >= endsAt).length).toBeGreaterThan(0);
    expect(shown.filter((s) => s.where === '/' && s.state === 'no row')).toEqual([]);
    // the Data API's answer the daemon holds is from before the end: it still lists both validations as current
    const refreshed = Number(/^avahealth_chain_data_last_refresh_timestamp_seconds (\S+)/m.exec((await get(`${fleet.url}/metrics`)).body)?.[1]);
    expect(refreshed).toBeLessThan(Math.min(...ends.values()));
    // critical before the end (the last 1/14 of the period): the views did show it, as they should
    expect(shown.some((s) => s.at < ended(s.target) && s.state === 'unhealthy')).toBe(true);
    expect(shown.filter((s) => s.at >= ended(s.target) && s.state === 'unhealthy')).toEqual([]);
    // a renewing validator whose vote likely commits is not paged as ending (ACP-236): only the plain one was
    // The sim keeps it listed REWARD_DELAY_SECONDS past endTime, as AvalancheGo does until the reward
    // proposal: the first poll after the end (1 s apart) does not know yet, and the outcome follows on
    // the same incident once the reward records tell it.
    await waitFor('EndingSoon resolved with the outcome', () => resolvedEnding('paid').some((a) => a.annotations.summary?.includes(', paid')), 20_000);
    const resolves = resolvedEnding('paid');
    expect(resolves.map((a) => a.annotations.summary)).toEqual([
      ...(resolves.length === 2 ? ['paid: validation period ended; outcome not known yet'] : []),
      'paid: validation period ended, paid 117.4 AVAX',
    ]);
    expect(new Set(resolves.map((a) => `${a.fingerprint} ${a.startsAt} ${a.endsAt}`)).size).toBe(1);
    expect(fleet.told({ path: '/hook', alertname: 'AvalancheValidatorEndingSoon', target: 'renewed' })).toEqual([]);
  });

  const resolvedEnding = (target: string) => fleet.told({ path: '/hook', status: 'resolved', alertname: 'AvalancheValidatorEndingSoon', target });
});
