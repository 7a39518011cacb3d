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

/**
 * Values whose echo gets cut, stripped or collapsed on the way to an error text: a head that shows
 * if the value is cut at 300 characters, `<b>`/`<i>` that tag stripping would eat, two spaces that
 * whitespace collapsing would join, and `+/=&<>"\\` that every encoding changes.
 */
const MANGLED = {
  password: 'PwQ7x<i>  +/=&SECRET-1111',
  cookie: 'CkZ3m<b>  +/=&<>SECRET-2222',
  token: 'TkR8n"\\+/=&<>SECRET-3333',
  receiverHeader: 'RvW2p<b>  +/=&<>SECRET-4444',
};
const CREDENTIAL = Buffer.from(`op:${MANGLED.password}`).toString('base64');
const HEADS = Object.values(MANGLED).map((v) => v.slice(0, 5));

const htmlEscape = (v: string) => v.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
/** How an echoing server writes a value back: the form is the path (receivers) or the User-Agent (nodes, a harmless header). */
const FORMS: Record<string, (values: string[]) => string> = {
  // cut at 300 characters 10 characters into the first value
  cut: (values) => `<html><body><p>${'.'.repeat(290)}${values[0]}</p></body></html>`,
  raw: (values) => `<html><body>${values.map((v) => `<p>you sent <b>${v}</b></p>`).join('')}</body></html>`,
  url: (values) => values.map(encodeURIComponent).join(' '),
  urllower: (values) => values.map((v) => encodeURIComponent(v).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())).join(' '),
  base64: (values) => `${values.map((v) => Buffer.from(v).toString('base64')).join(' ')} block=${Buffer.from(values.map((v, i) => `h${i}: ${v}`).join('\r\n')).toString('base64')}`,
  html: (values) => `<pre>${values.map(htmlEscape).join('\n')}</pre>`,
  hex: (values) => values.map((v) => Buffer.from(v).toString('hex').toUpperCase()).join(' '),
};

/** Every way a value of MANGLED (or a head of one) could show in `emitted`, decoded back: names what leaked. */
function leaksOf(emitted: string): string[] {
  const found: string[] = [];
  const unescaped = emitted.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;|&#x27;/g, "'").replace(/&amp;/g, '&');
  const decoded = unescaped.replace(/%[0-9a-fA-F]{2}/g, (e) => String.fromCharCode(parseInt(e.slice(1), 16)));
  for (const [how, text] of [['as written, HTML- or URL-encoded', decoded], ['JSON-escaped', decoded.replaceAll('\\\\', '\\').replaceAll('\\"', '"')]] as const) {
    for (const m of text.match(/SECRET-\d{4}/g) ?? []) found.push(`${m} ${how}`);
    for (const head of HEADS) if (text.includes(head)) found.push(`the head ${head} ${how}`);
  }
  for (const run of emitted.match(/[A-Za-z0-9+/_-]{12,}/g) ?? []) {
    for (let k = 0; k < 4; k++) if (Buffer.from(run.slice(k), 'base64').toString('latin1').includes('SECRET')) found.push(`base64 ${run}`);
  }
  for (const run of emitted.match(/[0-9a-fA-F]{12,}/g) ?? []) {
    for (let k = 0; k < 2; k++) if (Buffer.from(run.slice(k), 'hex').toString('latin1').includes('SECRET')) found.push(`hex ${run}`);
  }
  return [...new Set(found)];
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

  it('a secret cut at 300 characters, holding tags or two spaces, or echoed URL-encoded, base64, HTML-escaped or as hex, is redacted everywhere', { timeout: 120_000 }, async () => {
    // a node that answers 500 with an error body echoing its secret request headers (and the
    // basic-auth pair decoded) in the form its User-Agent names
    const node = await startFixtureServer((req, res) => {
      const auth = String(req.headers.authorization ?? '');
      const values = [String(req.headers.cookie ?? ''), String(req.headers['x-token'] ?? ''), auth, Buffer.from(auth.replace(/^Basic /, ''), 'base64').toString('utf8')];
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end(FORMS[String(req.headers['user-agent'])]!(values));
    });
    // webhook receivers that fail with their secret header echoed in the form their path names
    const hooks = await startCapture((req) => ({ status: 500, headers: { 'content-type': 'text/html' }, body: FORMS[req.path.slice(1)]!([String(req.headers['x-receiver-id'] ?? '')]) }));
    const sink = await startCapture();
    const forms = Object.keys(FORMS);
    const q = JSON.stringify;
    const file = writeConfig(`
listen: 127.0.0.1:0
state_dir: ./state
nodes:
${forms.map((form) => `  - {name: echo-${form}, url: "${node.url}", interval: 1s, endpoints: [health], basic_auth: {username: op, password: ${q(MANGLED.password)}}, headers: {User-Agent: ${form}, Cookie: ${q(MANGLED.cookie)}, X-Token: ${q(MANGLED.token)}}}`).join('\n')}
alerts:
  for_polls: 1
  receivers:
    - {name: sink, webhook: {url: "${sink.url}/sink"}}
${forms.map((form) => `    - {name: hook-${form}, webhook: {url: "${hooks.url}/${form}", headers: {X-Receiver-Id: ${q(MANGLED.receiverHeader)}}}}`).join('\n')}
`);
    const stateDir = join(dirname(file), 'state');
    const daemon = startCli(['run', '--config', file, '--log.level', 'debug']);
    let emitted = '';
    try {
      const [, address] = await daemon.waitForOutput(/"address":"([^"]+)".*avahealth started/);
      const url = `http://${address}`;
      await waitFor('every node paged to the sink', () => forms.every((form) => sink.requests.some((r) => r.body.includes(`echo-${form}`))), 60_000);
      await waitFor('every echoing receiver answered and was retried', () => forms.every((form) => hooks.on(`/${form}`).length > 0) && (daemon.output().match(/will retry/g) ?? []).length >= forms.length, 60_000);
      // the echoes really carried the values, so redaction was exercised
      expect(hooks.requests[0]!.headers['x-receiver-id']).toBe(MANGLED.receiverHeader);
      expect(node.url).toBeTruthy();

      for (const path of ['/', '/api/v1/status', '/api/v1/alerts', '/metrics', ...forms.map((f) => `/targets/echo-${f}`)]) emitted += (await get(`${url}${path}`)).body;
      emitted += sink.requests.map((r) => r.body).join('\n');
      daemon.child.kill('SIGTERM');
      await daemon.exit;
      emitted += daemon.output();
      const files = filesUnder(stateDir);
      expect(files.some((f) => f.endsWith('alerts.json'))).toBe(true);
      for (const path of files) emitted += readFileSync(path, 'utf8');

      expect(emitted).toContain('[REDACTED]');
      expect(emitted).toContain('HTTP 500');
      expect(emitted.includes(CREDENTIAL)).toBe(false);
      expect(leaksOf(emitted)).toEqual([]);
    } finally {
      daemon.child.kill('SIGKILL');
      await node.close();
      await hooks.close();
      await sink.close();
    }
  });
});
