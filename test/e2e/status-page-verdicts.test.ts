/**
 * The status page reads the pipeline's verdicts, in a real browser (Debian's chromium, driven by
 * playwright-core): a period that ended unpaid is a change on the target's page (the incident fired,
 * the target went unhealthy), though the node's health reply never changed; the demo's validator-2
 * has the critical disk the README says; a reward the vote likely
 * pays carries no failure mark; the alerts table of the demo fleet fits a 1,280-pixel window.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoFleet, fleetConfigYaml, type FleetNode } from '../../src/sim/fleet.js';
import { SimServer } from '../../src/sim/server.js';
import { ROOT } from '../helpers/cli.js';
import { get, startDaemon, waitFor, type RunningDaemon } from '../helpers/harness.js';
import { requireTool } from '../helpers/tools.js';

const executablePath = requireTool('chromium', 'the browser tests', ['chromium', 'chromium-browser']);

/** Long enough for the daemon to see the period before it ends (it cannot judge a period it never saw). */
const ENDS_IN = 20;

describe.skipIf(!executablePath)('the status page follows the verdicts', () => {
  let sim: SimServer;
  let d: RunningDaemon;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const fleet: FleetNode[] = [...demoFleet(), { name: 'unpaid', scenario: 'healthy', validationEndsIn: ENDS_IN }, { name: 'likely', scenario: 'healthy' }];
    sim = new SimServer(fleet);
    await sim.listen(0);
    // Peers see `unpaid` below the requirement: less than half the stake votes to reward it
    // (vms/platformvm/block/executor/options.go, prefersCommit; played by src/sim/periods.ts).
    sim.nodes.get('unpaid')!.economics.rewardingStakePercent = 20;
    // 70 % of stake sees `likely` at or above the requirement: the vote likely rewards it (model/reward-vote.ts).
    sim.nodes.get('likely')!.economics.rewardingStakePercent = 70;
    d = await startDaemon(`${fleetConfigYaml(fleet, { baseUrl: sim.baseUrl, listen: '127.0.0.1:0', interval: '1s' })}alerts:\n  for_polls: 1\n`, { adminApi: true });
    await waitFor('every target polled', () => d.daemon.ready, 20_000);
    browser = await chromium.launch({
      executablePath: executablePath!,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await d?.stop();
    await sim?.close();
  });

  type Alert = { alertname: string; target: string; state: string; severity: string; annotations: { summary: string } };
  const alerts = async () => (JSON.parse((await get(`${d.url}/api/v1/alerts`)).body) as { alerts: Alert[] }).alerts;

  it('an unpaid period is a change on the target page: the incident and the state it gave the target', { timeout: 90_000 }, async () => {
    const missed = await waitFor('AvalancheValidatorRewardMissed of unpaid firing', async () => (await alerts()).find((a) => a.alertname === 'AvalancheValidatorRewardMissed' && a.target === 'unpaid' && a.state === 'firing'), 60_000);
    await page.goto(`${d.url}/targets/unpaid`);
    const changes = await page.locator('section[aria-labelledby=changes]').innerText();
    expect(changes).not.toContain('No changes seen');
    expect(changes).toContain(`AvalancheValidatorRewardMissed firing (critical) → unhealthy: ${missed.annotations.summary}`);
    // The health reply never changed: every change there is a verdict's.
    await expect(page.locator('section[aria-labelledby=changes] li.bad').count()).resolves.toBeGreaterThan(0);
  });

  it('a reward the vote likely pays carries no failure mark', async () => {
    await waitFor('the validator panel of likely', async () => (await get(`${d.url}/targets/likely`)).body.includes('Rewarding stake'), 20_000);
    await page.goto(`${d.url}/targets/likely`);
    const row = page.locator('dl.facts dd').filter({ hasText: 'reward likely' });
    const text = await row.innerText();
    expect(text).toContain('70.0 %');
    expect(text).not.toContain('✖');
    await expect(row.locator('.bad').count()).resolves.toBe(0);
  });

  it("the README says of the demo's validator-2 what the demo shows: a critical disk", async () => {
    const disk = await waitFor('AvalancheDiskLow of validator-2 firing', async () => (await alerts()).find((a) => a.alertname === 'AvalancheDiskLow' && a.target === 'validator-2'), 20_000);
    expect(disk.severity).toBe('critical');
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain("The demo serves ten simulated nodes (healthy, disk running low (critical: below AvalancheGo's own 10 %)");
  });

  it('the alerts table fits 1,280 pixels: no target name or time breaks over two lines', async () => {
    await waitFor('AvalancheDiskLow of validator-2 firing', async () => (await alerts()).some((a) => a.alertname === 'AvalancheDiskLow' && a.target === 'validator-2'), 20_000);
    await page.goto(`${d.url}/`);
    const links = page.locator('section[aria-labelledby=alerts] td[data-label=Target] a');
    await expect(links.count()).resolves.toBeGreaterThan(0);
    // …nor a time ("29s ago") over two
    const times = page.locator('section[aria-labelledby=alerts] td[data-label=Since]');
    const wrapped = await times.evaluateAll((all) => all.filter((td) => td.querySelector('time')!.getClientRects().length > 1).map((td) => td.textContent));
    expect(wrapped).toEqual([]);
    const broken = await links.evaluateAll((all) => all.filter((a) => a.getClientRects().length > 1 || a.getBoundingClientRect().height > 1.6 * parseFloat(getComputedStyle(a).lineHeight || '20')).map((a) => a.textContent));
    expect(broken).toEqual([]);
    await expect(page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).resolves.toBe(true);
  });
});
