/**
 * Configured header values are secrets unless the header is a well-known harmless one (Accept,
 * Content-Type, User-Agent, …) written out in the config: a node that echoes every request header
 * back shows its token redacted and `application/json` intact; a harmless header whose value came
 * from ${ENV} stays a secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, startDaemon, startFixtureServer, waitFor, type RunningDaemon } from '../helpers/harness.js';

const TOKEN = 'tok-SECRET-7f3a9c';
const TENANT = 'tenant-SECRET-51be';
const TEMPLATED_AGENT = 'agent-SECRET-from-env-88d1';

describe('harmless header values are not secrets', () => {
  let node: Awaited<ReturnType<typeof startFixtureServer>>;
  let d: RunningDaemon;

  beforeAll(async () => {
    node = await startFixtureServer((req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ healthy: false, checks: { network: { error: `peer said: ${JSON.stringify(req.headers)}`, message: { echoed: req.headers }, timestamp: '2026-08-22T14:03:41Z', duration: 1, contiguousFailures: 3 } } }));
    });
    process.env.AVAHEALTH_TEST_AGENT = TEMPLATED_AGENT;
    d = await startDaemon(`
nodes:
  - name: echoer
    url: "${node.url}"
    interval: 1s
    endpoints: [health]
    validator: false
    bearer_token: ${TOKEN}
    headers: {Accept: application/json, X-Tenant: ${TENANT}, User-Agent: "\${AVAHEALTH_TEST_AGENT}"}
`);
  });

  afterAll(async () => {
    delete process.env.AVAHEALTH_TEST_AGENT;
    await d?.stop();
    await node?.close();
  });

  it('redacts the token, the tenant and the ${ENV} user agent, and keeps application/json', async () => {
    const body = await waitFor('the echoed check', async () => {
      const text = (await get(`${d.url}/api/v1/targets/echoer`)).body;
      return text.includes('peer said') ? text : undefined;
    });
    const error = JSON.stringify(JSON.parse(body)).match(/peer said: [^"\\]*(?:\\.[^"\\]*)*/)![0];
    // the echo really carried what was sent
    expect(error).toContain('authorization');
    expect(error).toContain('\\"accept\\":\\"application/json\\"');
    expect(error).toContain('\\"x-tenant\\":\\"[REDACTED]\\"');
    expect(error).toContain('\\"user-agent\\":\\"[REDACTED]\\"');
    const page = body + (await get(`${d.url}/targets/echoer`)).body + d.logs();
    for (const secret of [TOKEN, TENANT, TEMPLATED_AGENT]) expect(page.includes(secret), `${secret} leaked`).toBe(false);
    expect(d.daemon.store.get('echoer')!.observation.endpoints[0]!.report!.checks[0]!.error).toContain('"accept":"application/json"');
  });
});
