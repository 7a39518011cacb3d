/**
 * Secrets that a target or a receiver ECHOES back, against the built daemon: a node that puts every
 * request header it got into a check's error and message, a hosted service that puts them into a
 * component's message, a webhook receiver that fails with its request headers in the answer, and a
 * Slack receiver that takes the alert text as it is. Every configured secret (node headers whatever
 * their name, service headers, the API key, receiver headers) must be absent from the status page,
 * the JSON API, the state files and outbox, the log, the Slack message and `check --format json`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCapture } from '../helpers/capture.js';
import { runCli, startCli } from '../helpers/cli.js';
import { get, startFixtureServer, waitFor, writeConfig } from '../helpers/harness.js';

const SECRETS = {
  nodeHeader: 'nodehdr-SECRET-aaaa1111', // a header whose name says nothing about being a secret
  nodeToken: 'nodetok-SECRET-bbbb2222',
  serviceHeader: 'svchdr-SECRET-cccc3333',
  apiKey: 'apikey-SECRET-dddd4444',
  receiverHeader: 'rcvhdr-SECRET-eeee5555',
  // JSON escapes it: echoed inside JSON (and JSON inside JSON) it reads differently, and must go all the same
  quotedHeader: 'quo"ted\\hdr-SECRET-ffff6666',
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('echoed secrets', () => {
  it('what a node, a service or a receiver echoes back is redacted everywhere the daemon shows, logs, stores or sends it', { timeout: 90_000 }, async () => {
    const node = await startFixtureServer((req, res) => {
      const echo = JSON.stringify(req.headers);
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ healthy: false, checks: { network: { error: `peer said: ${echo}`, message: { echoed: req.headers }, timestamp: '2026-08-22T14:03:41Z', duration: 1, contiguousFailures: 3 } } }));
    });
    const service = await startFixtureServer((req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'error', info: {}, error: { database: { status: 'down', message: `auth ${JSON.stringify(req.headers)}` } }, details: { database: { status: 'down', message: `auth ${JSON.stringify(req.headers)}` } } }));
    });
    const receiver = await startCapture((req) => ({ status: 500, body: `rejected, you sent ${JSON.stringify(req.headers)}` }));
    const slack = await startCapture();
    const file = writeConfig(`
listen: 127.0.0.1:0
state_dir: ./state
nodes:
  - {name: echoer, url: "${node.url}", interval: 1s, endpoints: [health], bearer_token: ${SECRETS.nodeToken}, headers: {X-Request-Origin: ${SECRETS.nodeHeader}, X-Quoted: '${SECRETS.quotedHeader}'}}
services:
  - {name: echo-api, kind: data-api, url: "${service.url}", interval: 1s, api_key: ${SECRETS.apiKey}, headers: {X-Tenant: ${SECRETS.serviceHeader}}}
alerts:
  for_polls: 1
  receivers:
    - {name: hook, webhook: {url: "${receiver.url}/hook", headers: {X-Receiver-Id: ${SECRETS.receiverHeader}}}}
    - {name: chat, slack: {url: "${slack.url}/services/T0/B0/x"}}
`);
    const stateDir = join(dirname(file), 'state');
    const daemon = startCli(['run', '--config', file, '--log.level', 'debug']);
    let emitted = '';
    try {
      const [, address] = await daemon.waitForOutput(/"address":"([^"]+)".*avahealth started/);
      const url = `http://${address}`;
      await waitFor('the echoing receiver answered and a retry was logged', () => receiver.requests.length > 0 && daemon.output().includes('will retry'), 30_000);
      await waitFor('the Slack message about the echoed check', () => slack.requests.some((r) => r.body.includes('echoer')), 30_000);
      await waitFor('the service component down', async () => (await get(`${url}/api/v1/status`)).body.includes('database'), 20_000);
      // the echoes really carried the secrets, so redaction was exercised
      expect(receiver.requests[0]!.headers['x-receiver-id']).toBe(SECRETS.receiverHeader);

      for (const path of ['/', '/api/v1/status', '/api/v1/alerts', '/targets/echoer', '/targets/echo-api', '/metrics']) emitted += (await get(`${url}${path}`)).body;
      emitted += slack.requests.map((r) => r.body).join('\n');
      const check = await runCli(['check', '--config', file, '--format', 'json']);
      expect(check.stdout).toContain('echoer');
      emitted += check.stdout + check.stderr;
      daemon.child.kill('SIGTERM');
      await daemon.exit;
      emitted += daemon.output();
      for (const path of filesUnder(stateDir)) emitted += readFileSync(path, 'utf8');

      expect(emitted).toContain('[REDACTED]');
      for (const [name, value] of Object.entries(SECRETS)) expect(emitted.includes(value), `${name} leaked`).toBe(false);
      // in any escaping (JSON, HTML): its distinct tail
      expect(emitted.includes('ffff6666'), 'quotedHeader leaked in some escaped form').toBe(false);
    } finally {
      daemon.child.kill('SIGKILL');
      await node.close();
      await service.close();
      await receiver.close();
      await slack.close();
    }
  });
});
