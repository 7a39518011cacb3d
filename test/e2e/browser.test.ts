/**
 * The status page in a real browser (Debian's chromium, driven by playwright-core): the demo fleet
 * and services are all shown, error text is visible, hostile check names render as text and run
 * nothing, the per-target page opens from the fleet view, and the page refreshes itself.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoFleet, fleetConfigYaml } from '../../src/sim/fleet.js';
import { SimServer } from '../../src/sim/server.js';
import { ROOT } from '../helpers/cli.js';
import { OWN_FIXTURES } from '../helpers/fixtures.js';
import { setScenario, startDaemon, startFixtureServer, waitFor, type RunningDaemon } from '../helpers/harness.js';
import { requireTool } from '../helpers/tools.js';

const executablePath = requireTool('chromium', 'the browser tests', ['chromium', 'chromium-browser']);
const ARTIFACTS = join(ROOT, 'test-artifacts');

describe.skipIf(!executablePath)('the status page in Chromium', () => {
  let sim: SimServer;
  let hostile: Awaited<ReturnType<typeof startFixtureServer>>;
  let d: RunningDaemon;
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    sim = new SimServer(demoFleet());
    await sim.listen(0);
    const body = readFileSync(join(OWN_FIXTURES, 'avalanchego', 'hostile-check-names.json'));
    hostile = await startFixtureServer((req, res) => {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(body);
    });
    const yaml = fleetConfigYaml(demoFleet(), { baseUrl: sim.baseUrl, listen: '127.0.0.1:0', interval: '1s' }).replace('nodes:\n', `nodes:\n  - {name: hostile, url: "${hostile.url}", endpoints: [health]}\n`);
    d = await startDaemon(`${yaml}alerts:\n  for_polls: 1\n`, { adminApi: true });
    await waitFor('every target polled', () => d.daemon.ready, 20_000);
    browser = await chromium.launch({
      executablePath: executablePath!,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await d?.stop();
    await sim?.close();
    await hostile?.close();
  });

  /** The row of a node in the Nodes table. */
  const nodeRow = (p: Page, name: string) => p.locator('section[aria-labelledby=nodes] tr', { has: p.getByRole('link', { name, exact: true }) });

  it('shows every node and service, their state in words, and the error text of failing checks', async () => {
    await page.goto(`${d.url}/`);
    const nodes = page.locator('section[aria-labelledby=nodes]');
    const services = page.locator('section[aria-labelledby=services]');
    for (const node of demoFleet()) await expect(nodes.getByRole('link', { name: node.name, exact: true }).count()).resolves.toBe(1);
    for (const service of ['data-api', 'metrics-api']) await expect(services.getByRole('link', { name: service, exact: true }).count()).resolves.toBe(1);
    const rpc = nodeRow(page, 'rpc-1');
    await expect(rpc.innerText()).resolves.toContain('✖ unhealthy');
    await expect(rpc.innerText()).resolves.toContain('subnets not bootstrapped');
    await expect(rpc.innerText()).resolves.toContain('not ready');
    const lagging = nodeRow(page, 'rpc-2');
    await expect(lagging.innerText()).resolves.toMatch(/\(−1[12]\d\)/); // 120 blocks behind
    await expect(page.locator('section[aria-labelledby=alerts]').innerText()).resolves.toContain('AvalancheDiskLow');
    await page.screenshot({ path: join(ARTIFACTS, 'status-fleet.png'), fullPage: true });
  });

  it('renders hostile check names and errors as text and executes nothing', async () => {
    await page.goto(`${d.url}/`);
    const row = await nodeRow(page, 'hostile').innerText();
    expect(row).toContain('<script>alert(1)</script>');
    expect(row).toContain('<script>alert(2)</script>');
    await page.goto(`${d.url}/targets/hostile`);
    await expect(page.locator('main').innerText()).resolves.toContain('<script>alert(1)</script>');
    expect(dialogs).toEqual([]);
    await expect(page.evaluate(() => document.querySelectorAll('script').length)).resolves.toBe(1);
    const csp = (await page.request.get(`${d.url}/`)).headers()['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(consoleErrors, consoleErrors.join('\n')).toEqual([]);
  });

  it('the per-target page opens from the fleet view and shows every check, the changes and the last response', async () => {
    await page.goto(`${d.url}/`);
    await page.locator('section[aria-labelledby=nodes]').getByRole('link', { name: 'validator-2', exact: true }).click();
    await page.waitForURL(`${d.url}/targets/validator-2`);
    const main = page.locator('main');
    await expect(main.getByRole('heading', { name: /validator-2/ }).count()).resolves.toBeGreaterThan(0);
    const text = await main.innerText();
    for (const check of ['C', 'P', 'X', 'bootstrapped', 'diskspace', 'network', 'router']) expect(text).toContain(check);
    expect(text).toContain('remaining available disk space percentage (9%)');
    await main.getByText('raw body (secrets redacted)').click();
    await expect(main.locator('pre').last().innerText()).resolves.toContain('"availableDiskPercentage":9');
    await page.screenshot({ path: join(ARTIFACTS, 'status-target.png'), fullPage: true });
  });

  it('refreshes itself: a scenario switch shows up without a reload', async () => {
    await page.goto(`${d.url}/`);
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    const row = nodeRow(page, 'validator-1');
    await expect(row.innerText()).resolves.toContain('✔ healthy');
    await setScenario(sim, 'validator-1', 'network-down');
    await waitFor('validator-1 unhealthy on the page', async () => (await row.innerText()).includes('✖ unhealthy'), 20_000);
    await expect(row.innerText()).resolves.toContain('network layer is unhealthy');
    await expect(page.evaluate(() => (window as unknown as { marker: number }).marker)).resolves.toBe(42); // same document
    await setScenario(sim, 'validator-1', 'healthy');
  });

  it('shows a silenced alert as silenced (badge, header counts, by which silence, until when), as the API does', async () => {
    // Its own fleet whose scenarios never change, so the firing count read before silencing still
    // holds after it (the demo fleet flaps and churns between two reads).
    const fixed = demoFleet().filter((n) => n.name === 'validator-1' || n.name === 'validator-2');
    const fixedSim = new SimServer(fixed);
    await fixedSim.listen(0);
    const fd = await startDaemon(`${fleetConfigYaml(fixed, { baseUrl: fixedSim.baseUrl, listen: '127.0.0.1:0', interval: '1s' })}alerts:\n  for_polls: 1\n`, { adminApi: true });
    try {
      await silencedAlertShownAsSilenced(fd);
    } finally {
      await fd.stop();
      await fixedSim.close();
    }
  });

  async function silencedAlertShownAsSilenced(d: RunningDaemon): Promise<void> {
    const alertsNow = async () => JSON.parse(await (await page.request.get(`${d.url}/api/v1/alerts`)).text()) as { alerts: Array<{ alertname: string; target: string; state: string; silencedBy?: { id: string; endsAt: number; comment: string } }> };
    const statusNow = async () => JSON.parse(await (await page.request.get(`${d.url}/api/v1/status`)).text()) as { alerts: { firing: number; silenced: number; silencedAlerts: Array<{ alertname: string; target: string; silencedBy: { id: string; endsAt: number } }> } };
    await waitFor('every target polled', () => d.daemon.ready, 20_000);
    await waitFor('AvalancheDiskLow of validator-2 firing', async () => (await alertsNow()).alerts.some((a) => a.alertname === 'AvalancheDiskLow' && a.target === 'validator-2' && a.state === 'firing'), 20_000);
    await page.goto(`${d.url}/`);
    const summary = page.locator('p.summary');
    const firingBefore = Number(/(\d+) alerts? firing/.exec(await summary.innerText())![1]);
    expect((await statusNow()).alerts.firing).toBe(firingBefore);
    const endsAt = new Date(Date.now() + 3_600_000);
    const created = await page.request.post(`${d.url}/api/v1/silences`, {
      headers: { 'content-type': 'application/json' },
      data: { matchers: { alertname: 'AvalancheDiskLow', target: 'validator-2' }, endsAt: endsAt.toISOString(), comment: 'disk ordered', createdBy: 'ops' },
    });
    expect(created.status()).toBe(200);
    const { id } = (await created.json()) as { id: string };
    try {
      const shown = (await alertsNow()).alerts.find((a) => a.alertname === 'AvalancheDiskLow' && a.target === 'validator-2')!;
      // every time in the API is in epoch seconds
      expect(shown).toMatchObject({ state: 'silenced', silencedBy: { id, endsAt: endsAt.getTime() / 1000, comment: 'disk ordered' } });
      const status = await statusNow();
      expect(status.alerts.firing).toBe(firingBefore - 1);
      expect(status.alerts.silenced).toBe(1);
      expect(status.alerts.silencedAlerts).toEqual([expect.objectContaining({ alertname: 'AvalancheDiskLow', target: 'validator-2', silencedBy: expect.objectContaining({ id, endsAt: endsAt.getTime() / 1000 }) })]);

      await page.goto(`${d.url}/`);
      // what its root cause holds back (the diskspace check's alert) is counted apart, as held
      await expect(summary.innerText()).resolves.toMatch(new RegExp(`${firingBefore - 1} alerts? firing(, \\d+ held)?, 1 silenced`));
      // the disk's own alert (its symptoms, held, name it as their root cause)
      const row = page.locator('section[aria-labelledby=alerts] tr').filter({ has: page.locator('td[data-label=Alert]', { hasText: /^AvalancheDiskLow$/ }) }).filter({ hasText: 'validator-2' });
      const text = await row.innerText();
      expect(text).toMatch(/⊘ silenced \((warning|critical)\)/);
      expect(text).toContain(id);
      expect(text).toContain('disk ordered');
      expect(text).toContain(endsAt.toISOString().slice(0, 10));
      await expect(row.locator('.badge.critical, .badge.warning').count()).resolves.toBe(0);
      await page.screenshot({ path: join(ARTIFACTS, 'status-silenced.png'), fullPage: true });
    } finally {
      await page.request.delete(`${d.url}/api/v1/silences/${id}`);
    }
    await expect((await alertsNow()).alerts.find((a) => a.alertname === 'AvalancheDiskLow' && a.target === 'validator-2')!.state).toBe('firing');
  }

  it('reads on a phone, and works from the keyboard', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    await phone.goto(`${d.url}/`);
    await expect(phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).resolves.toBe(true);
    await expect(phone.locator('thead').first().isVisible()).resolves.toBe(false); // rows become cards
    await phone.screenshot({ path: join(ARTIFACTS, 'status-phone.png'), fullPage: true });
    await phone.keyboard.press('Tab');
    await expect(phone.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Skip to content');
    await phone.keyboard.press('Tab');
    await expect(phone.evaluate(() => document.activeElement?.tagName)).resolves.toBe('A');
    await phone.close();
  });

  it('follows the system colour scheme', async () => {
    const dark = await browser.newPage({ colorScheme: 'dark' });
    await dark.goto(`${d.url}/`);
    const background = await dark.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe('rgb(13, 17, 23)');
    await dark.screenshot({ path: join(ARTIFACTS, 'status-dark.png') });
    await dark.close();
  });
});
