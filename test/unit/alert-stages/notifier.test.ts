/** The notifier alone: it receives batches (no pipeline behind it) and delivers them; a resend batch goes only to receivers that forget. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Notifier } from '../../../src/alerts/notifier.js';
import { parseConfig } from '../../../src/config/load.js';
import { createLogger } from '../../../src/log.js';
import { HttpClient } from '../../../src/transport/client.js';
import { startCapture } from '../../helpers/capture.js';
import { waitFor } from '../../helpers/harness.js';
import { batch, notice } from '../../helpers/notices.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('notifier', () => {
  it('delivers a batch to every receiver it routes to, and the firing incidents again only to Alertmanager', async () => {
    const capture = await startCapture(() => ({ status: 200 }));
    cleanups.push(() => capture.close());
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-notifier-'));
    const config = parseConfig(
      `state_dir: ${dir}\nalerts:\n  receivers:\n    - {name: hook, webhook: {url: "${capture.url}/hook"}}\n    - {name: am, alertmanager: {url: "${capture.url}/am", resend_interval: 1m}}\n`,
      join(dir, 'c.yaml'),
      {},
    );
    const http = new HttpClient({ maxResponseBytes: 65_536, userAgent: 'avahealth-test' });
    const events = { delivered: () => undefined, failed: () => undefined, queueLength: () => undefined };
    const notifier = new Notifier(config, http, events, createLogger({ level: 'silent', format: 'json' }));
    cleanups.push(() => notifier.stop(), () => http.close());
    expect(notifier.resendIntervalMs()).toBe(60_000);
    notifier.start(Date.now() - 61_000);
    notifier.dispatch(batch([notice('C')]));
    await waitFor('both receivers told', () => capture.requests.length === 2, 10_000);
    expect(capture.requests.map((r) => r.path).sort()).toEqual(['/am/api/v2/alerts', '/hook']);
    await waitFor('the queues empty', () => Object.values(notifier.queueLengths()).every((n) => n === 0), 10_000);
    notifier.dispatch({ ...batch([notice('C')]), id: 'again', resend: true });
    notifier.dispatch({ ...batch([notice('C')]), id: 'too-soon', resend: true }); // within the interval: not taken
    await waitFor('the re-send', () => capture.requests.length === 3, 10_000);
    expect(capture.requests[2]!.path).toBe('/am/api/v2/alerts');
    expect(notifier.told().open.has('fp-C')).toBe(true);
  });

  it('a resolve reaches a receiver that was told the firing, even when it no longer routes the incident (min_severity)', async () => {
    const capture = await startCapture(() => ({ status: 200 }));
    cleanups.push(() => capture.close());
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-notifier-'));
    const config = parseConfig(
      `state_dir: ${dir}\nalerts:\n  receivers:\n    - {name: pager, min_severity: critical, webhook: {url: "${capture.url}/pager"}}\n    - {name: chat, webhook: {url: "${capture.url}/chat"}}\n`,
      join(dir, 'c.yaml'),
      {},
    );
    const http = new HttpClient({ maxResponseBytes: 65_536, userAgent: 'avahealth-test' });
    const events = { delivered: () => undefined, failed: () => undefined, queueLength: () => undefined };
    const notifier = new Notifier(config, http, events, createLogger({ level: 'silent', format: 'json' }));
    cleanups.push(() => notifier.stop(), () => http.close());
    notifier.start();
    const told = (path: string) => capture.requests.filter((r) => r.path === path).map((r) => (JSON.parse(r.body) as { alerts: Array<{ status: string; labels: { severity: string } }> }).alerts.map((a) => `${a.status} ${a.labels.severity}`).join());
    notifier.dispatch({ ...batch([notice('C', 'firing', 'critical')]), id: 'critical' });
    await waitFor('the page', () => told('/pager').length === 1 && told('/chat').length === 1, 10_000);
    // It eases to a warning: the pager no longer routes it, so it hears nothing of that …
    notifier.dispatch({ ...batch([{ ...notice('C', 'firing', 'warning'), kind: 'severity_changed' }]), id: 'eased' });
    await waitFor('the chat told', () => told('/chat').length === 2, 10_000);
    // … but the incident it was paged for ends, and it must hear that it ended.
    notifier.dispatch({ ...batch([notice('C', 'resolved', 'warning')]), id: 'over' });
    await waitFor('the resolve at both', () => told('/pager').length === 2 && told('/chat').length === 3, 10_000);
    expect(told('/pager')).toEqual(['firing critical', 'resolved warning']);
  });
});
