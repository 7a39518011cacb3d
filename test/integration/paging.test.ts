/**
 * A loud start when nothing can page (issue 46): no receiver, or routes that leave a target's
 * critical alerts out, are a warning at start and a bordered alert on the status page (and in
 * `/api/v1/status`); `alerts.paging: prometheus` says the Prometheus rules page instead; a reload
 * that fixes it says so.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { closedPort, get, startDaemon, waitFor, writeConfig } from '../helpers/harness.js';

const logLines = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('a loud start when nothing can page', () => {
  it('no receiver at all: a warning at start, a bordered alert on the page, the reason in /api/v1/status', async () => {
    const port = await closedPort();
    const d = await startDaemon(`listen: 127.0.0.1:0\nnodes:\n  - {name: validator-1, url: "http://127.0.0.1:${port}"}\n`);
    try {
      const warning = logLines(d.logs()).find((l) => l.level === 40 && String(l.msg).startsWith('nothing pages'));
      expect(warning).toMatchObject({ msg: 'nothing pages: no receiver is configured, so no one is told of a critical alert; add a receiver under alerts.receivers, or set alerts.paging: prometheus when the shipped Prometheus rules page through Alertmanager', paging: 'receivers', receivers: [] });
      const page = await get(`${d.url}/`);
      expect(page.body).toContain('<p class="paging nobody" role="alert"><strong>⚠ Paging:</strong> nothing pages: no receiver is configured');
      const status = JSON.parse((await get(`${d.url}/api/v1/status`)).body) as { paging: Record<string, unknown> };
      expect(status.paging).toMatchObject({ by: 'receivers', receivers: [], problem: expect.stringContaining('no receiver is configured') });
    } finally {
      await d.stop();
    }
  });

  it('routes that leave a target out name it; a reload that routes it says paging is whole again', async () => {
    const port = await closedPort();
    const yaml = (matchers: string) => `listen: 127.0.0.1:0
nodes:
  - {name: validator-1, url: "http://127.0.0.1:${port}", labels: {env: mainnet}}
  - {name: fuji-1, url: "http://127.0.0.1:${port}", labels: {env: fuji}}
alerts:
  receivers:
    - {name: pager, webhook: {url: "http://127.0.0.1:${port}/hook"}, matchers: ${matchers}, min_severity: critical}
    - {name: chat, webhook: {url: "http://127.0.0.1:${port}/chat"}, matchers: {env: mainnet, severity: warning}}
`;
    const file = writeConfig(yaml('{env: mainnet}'));
    const d = await startDaemon(yaml('{env: mainnet}'), { file });
    try {
      const warning = logLines(d.logs()).find((l) => l.level === 40 && String(l.msg).startsWith('no receiver takes'))!;
      expect(warning).toMatchObject({ unrouted: ['fuji-1'], unroutedTargets: 1, receivers: ['pager'] });
      expect(warning.msg).toBe("no receiver takes the critical alerts of fuji-1 (every route's matchers leave them out): no one is told when they fail; add a receiver under alerts.receivers, or set alerts.paging: prometheus when the shipped Prometheus rules page through Alertmanager");
      expect((await get(`${d.url}/`)).body).toContain('no receiver takes the critical alerts of fuji-1');
      writeFileSync(file, yaml('{env: "~mainnet|fuji"}'));
      expect((await d.daemon.reload()).ok).toBe(true);
      await waitFor('the all-clear', () => logLines(d.logs()).some((l) => l.msg === 'every target has a receiver for its critical alerts again'));
      const page = (await get(`${d.url}/`)).body;
      expect(page).not.toContain('paging nobody');
      expect(page).toContain('<p class="paging">Paging: critical alerts go to <code>pager</code>.</p>');
    } finally {
      await d.stop();
    }
  });

  it('alerts.paging: prometheus: the Prometheus rules page, no warning, and the page says so', async () => {
    const port = await closedPort();
    const d = await startDaemon(`listen: 127.0.0.1:0\nnodes:\n  - {name: validator-1, url: "http://127.0.0.1:${port}"}\nalerts:\n  paging: prometheus\n`);
    try {
      const lines = logLines(d.logs());
      expect(lines.filter((l) => l.level === 40 && /receiver|pages/.test(String(l.msg)))).toEqual([]);
      expect(lines.find((l) => l.paging === 'prometheus')?.msg).toBe('paging is by the Prometheus rules through Alertmanager (alerts.paging: prometheus); avahealth cannot see whether they are loaded');
      expect((await get(`${d.url}/`)).body).toContain('<p class="paging">Paging: by the Prometheus rules (<code>deploy/prometheus</code>) through Alertmanager; avahealth cannot see whether they are loaded.</p>');
    } finally {
      await d.stop();
    }
  });
});
