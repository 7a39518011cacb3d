/**
 * A node URL that is not the node's API root (a wrong path prefix) or a node whose health API is
 * off: every health endpoint answers 404 (issue 46). `check` says so with a hint where to look, and
 * its line says how it is counted (the perfdata's `unreachable`), as the status API's summary does.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startDaemon, startSim, waitFor, get, writeConfig } from '../helpers/harness.js';

const HINT = "is the URL the node's API root (no /ext/… path; a proxy's own prefix if any)? else its health API is off (--api-health-enabled=false)";

describe('every health endpoint answering 404', () => {
  it('check names the 404, where to look, and that the target counts as unreachable', async () => {
    const sim = await startSim([{ name: 'off', scenario: 'not-found' }, { name: 'up', scenario: 'healthy' }]);
    try {
      const file = writeConfig(`nodes:\n  - {name: off, url: "${sim.nodeUrl('off')}"}\n  - {name: prefixed, url: "${sim.nodeUrl('up')}/avax"}\n  - {name: up, url: "${sim.nodeUrl('up')}"}\n`);
      const result = await runCli(['check', '--config', file]);
      expect(result.code).toBe(2);
      const [headline, ...lines] = result.stdout.split('\n');
      expect(headline).toContain('unreachable=2;;;0;3');
      for (const name of ['off', 'prefixed']) {
        const line = lines.find((l) => l.startsWith(`${name} `))!;
        expect(line, name).toMatch(/^\S+ +HTTP_STATUS +no usable answer \(counted unreachable\): HTTP 404 at health, readiness and liveness \(404 page not found\): /);
        expect(line, name).toContain(HINT);
      }
      expect(lines.find((l) => l.startsWith('up '))).toMatch(/^up +HEALTHY +healthy/);
      // the status API's summary gives the same hint
      const d = await startDaemon(`listen: 127.0.0.1:0\nnodes:\n  - {name: prefixed, url: "${sim.nodeUrl('up')}/avax", interval: 1s}\n`);
      try {
        await waitFor('prefixed polled', () => d.daemon.ready, 15_000);
        const status = JSON.parse((await get(`${d.url}/api/v1/targets/prefixed`)).body) as { state: string; failure: string; summary: string };
        expect(status).toMatchObject({ state: 'unreachable', failure: 'http_status' });
        expect(status.summary).toBe(`HTTP 404 at health, readiness and liveness (404 page not found): ${HINT}`);
      } finally {
        await d.stop();
      }
    } finally {
      await sim.close();
    }
  });
});
