/**
 * The web config under attack, against the built daemon: a flood of bad passwords (real bcrypt
 * hash, cost 10), a web config emptied or broken while it runs, and sockets that connect and never
 * start TLS. Authorised users keep being served; nothing is opened by accident.
 *
 * Issue 35, 5: 100 made-up users from 100 loopback networks (real sockets bound to 127.N.0.1) got
 * 3,419 of 3,487 answers 429 and locked the real users out, Prometheus and the kubelet included,
 * after every restart (no credentials verified yet). Throttling is per network and per user name,
 * and clients without failures are checked first.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect as connectTcp, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { MAX_CONNECTIONS } from '../../src/http/connections.js';
import { startCli } from '../helpers/cli.js';
import { parseExposition, sample, waitFor, writeConfig } from '../helpers/harness.js';

const PASSWORD = 'correct horse battery staple';
const HASH = bcrypt.hashSync(PASSWORD, 10).replace(/^\$2b\$/, '$2y$');
const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

async function startWithWebConfig(web: string, dir = mkdtempSync(join(tmpdir(), 'avahealth-auth-'))) {
  writeFileSync(join(dir, 'web.yml'), web);
  const file = writeConfig('listen: 127.0.0.1:0\nstate_dir: ./state\nnodes: []\n');
  const daemon = startCli(['run', '--config', file, '--web.config.file', join(dir, 'web.yml')]);
  const [, address] = await daemon.waitForOutput(/"address":"([^"]+)".*avahealth started/);
  return { daemon, dir, address: address! };
}

describe('authentication under attack', () => {
  it('120 bad passwords in parallel: an authorised scrape is served meanwhile, bcrypt runs for at most 10 of them, the rest are throttled', { timeout: 60_000 }, async () => {
    const { daemon, address } = await startWithWebConfig(`basic_auth_users:\n  prometheus: ${HASH}\n`);
    const url = `http://${address}`;
    const agent = new Agent({ connections: 200 });
    const own = new Agent(); // the authorised client's own connection, as Prometheus has
    const get = async (path: string, headers: Record<string, string>, dispatcher = agent) => {
      const res = await request(`${url}${path}`, { headers, dispatcher });
      await res.body.dump();
      return { status: res.statusCode, retryAfter: res.headers['retry-after'] };
    };
    try {
      expect((await get('/metrics', basic('prometheus', PASSWORD))).status).toBe(200); // verified once, then cached
      expect((await get('/metrics', basic('nobody', PASSWORD))).status).toBe(401); // an unknown user: a failure like any other

      let settled = 0;
      const flood = Array.from({ length: 120 }, (_, i) => get('/metrics', basic('prometheus', `guess-${i}`)).finally(() => settled++));
      await waitFor('the flood being answered', () => settled > 0, 20_000);
      const healthy = await get('/-/healthy', basic('prometheus', PASSWORD), own);
      const settledWhenServed = settled;
      const answers = await Promise.all(flood);

      expect(healthy.status).toBe(200);
      // The event loop served the authorised request while bcrypt checks of the flood were still running.
      expect(settledWhenServed).toBeLessThan(120);
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
      // 10 failures per network and minute, the unknown user included; a network has at most 4 checks at a time
      expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(9);
      expect(answers.filter((a) => a.status === 429).every((a) => Number(a.retryAfter) >= 1)).toBe(true);
      // Throttled as it is, the client with the right password is still let in.
      expect((await get('/metrics', basic('prometheus', PASSWORD))).status).toBe(200);
    } finally {
      daemon.child.kill('SIGKILL');
      await agent.close();
      await own.close();
    }
  });

  it('100 made-up users from 100 networks: Prometheus and the kubelet, not verified yet, are let in; then across a reload', { timeout: 180_000 }, async () => {
    const kubeletPassword = 'kubelet probe secret';
    const web = `basic_auth_users:\n  prometheus: ${bcrypt.hashSync(PASSWORD, 8)}\n  kubelet: ${bcrypt.hashSync(kubeletPassword, 8)}\n`;
    const { daemon, dir, address } = await startWithWebConfig(web);
    const url = `http://${address}`;
    const agents: Agent[] = [];
    const from = (localAddress: string) => {
      const agent = new Agent({ localAddress });
      agents.push(agent);
      return async (path: string, headers: Record<string, string>) => {
        const res = await request(`${url}${path}`, { headers, dispatcher: agent, headersTimeout: 60_000 });
        await res.body.dump();
        return res.statusCode;
      };
    };
    let stopped = false;
    const answered = new Set<number>();
    const statuses: number[] = [];
    /** Network 127.N.0.0/24 sends made-up users, two at a time, until the test ends. */
    const flood = (n: number) => {
      const get = from(`127.${n}.0.1`);
      return Array.from({ length: 2 }, async (_, lane) => {
        for (let i = 0; !stopped; i++) {
          const status = await get('/metrics', basic(`user-${n}-${lane}-${i}`, 'guess')).catch(() => 0);
          statuses.push(status);
          if (status === 401) answered.add(n);
          if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 500)); // refused: try again soon
        }
      });
    };
    try {
      const attacks = Array.from({ length: 100 }, (_, i) => flood(i + 1)).flat();
      // Every network has been checked once (the burst of first tries, as new to the daemon as
      // Prometheus is, is over); the flood goes on: 200 checks at once, where 64 made everyone wait.
      await waitFor('a bcrypt check for every attacking network', () => answered.size === 100, 120_000);
      const prometheus = from('127.0.0.1');
      const kubelet = from('127.0.200.1');
      expect(await prometheus('/metrics', basic('prometheus', PASSWORD))).toBe(200);
      expect(await kubelet('/-/healthy', basic('kubelet', kubeletPassword))).toBe(200);

      // a reload that leaves their credentials as they were keeps them verified
      writeFileSync(join(dir, 'web.yml'), `${web}  grafana: ${HASH}\n`);
      await daemon.waitForOutput(/"users":3.*web config reloaded/);
      for (let i = 0; i < 5; i++) {
        expect(await prometheus('/metrics', basic('prometheus', PASSWORD))).toBe(200);
        expect(await kubelet('/-/healthy', basic('kubelet', kubeletPassword))).toBe(200);
      }
      stopped = true;
      await Promise.race([Promise.all(attacks), daemon.exit]);
    } finally {
      stopped = true;
      daemon.child.kill('SIGKILL');
      await Promise.all(agents.map((agent) => agent.destroy()));
    }
  });

  it('failures per user name: guesses at one name from many networks are throttled for that name, not for others', { timeout: 60_000 }, async () => {
    const cheap = bcrypt.hashSync(PASSWORD, 4);
    const { daemon, address } = await startWithWebConfig(`basic_auth_users:\n  grafana: ${cheap}\n  prometheus: ${cheap}\n`);
    const agents: Agent[] = [];
    const get = async (localAddress: string, user: string, password: string) => {
      const agent = new Agent({ localAddress });
      agents.push(agent);
      const res = await request(`http://${address}/metrics`, { headers: basic(user, password), dispatcher: agent });
      await res.body.dump();
      return res.statusCode;
    };
    try {
      expect(await get('127.0.0.1', 'grafana', PASSWORD)).toBe(200); // grafana's own network
      const guesses: number[] = [];
      for (let n = 1; n <= 12; n++) guesses.push(await get(`127.${n}.0.1`, 'grafana', `guess-${n}`));
      expect(guesses.slice(0, 10)).toEqual(Array(10).fill(401));
      expect(guesses.slice(10)).toEqual([429, 429]); // from networks that had not failed yet
      expect(await get('127.14.0.1', 'grafana', 'guess-14')).toBe(429);
      expect(await get('127.13.0.1', 'grafana', PASSWORD)).toBe(200); // verified before: passes from anywhere
      expect(await get('127.13.0.1', 'prometheus', PASSWORD)).toBe(200); // another name is not held off
    } finally {
      daemon.child.kill('SIGKILL');
      await Promise.all(agents.map((agent) => agent.destroy()));
    }
  });

  it('a web config emptied or broken while running is refused: auth stays on, the error is logged and the metric says 0', { timeout: 60_000 }, async () => {
    const { daemon, dir, address } = await startWithWebConfig(`basic_auth_users:\n  prometheus: ${HASH}\n`);
    const url = `http://${address}`;
    const status = async (headers: Record<string, string> = {}) => {
      const res = await request(`${url}/metrics`, { headers });
      const body = await res.body.text();
      return { status: res.statusCode, body };
    };
    const reloadOk = async () => sample(parseExposition((await status(basic('prometheus', PASSWORD))).body), 'avahealth_web_config_last_reload_successful');
    try {
      expect(await reloadOk()).toBe(1);
      writeFileSync(join(dir, 'web.yml'), '');
      await daemon.waitForOutput(/the web config file is empty.*web config refused; keeping the current one/);
      expect((await status()).status).toBe(401);
      expect(await reloadOk()).toBe(0);

      writeFileSync(join(dir, 'web.yml'), 'basic_auth_users: [\n');
      await daemon.waitForOutput(/web config reload failed; keeping the current one/);
      expect((await status()).status).toBe(401);

      writeFileSync(join(dir, 'web.yml'), 'http_server_config:\n  headers: {X-Frame-Options: DENY}\n'); // valid, but drops basic auth
      await daemon.waitForOutput(/restart avahealth to turn basic auth off/);
      expect((await status()).status).toBe(401);

      writeFileSync(join(dir, 'web.yml'), `basic_auth_users:\n  prometheus: ${HASH}\n  grafana: ${HASH}\n`);
      await daemon.waitForOutput(/"users":2.*web config reloaded/);
      expect(await reloadOk()).toBe(1);
    } finally {
      daemon.child.kill('SIGKILL');
    }
  });

  it('TLS: sockets that never start a handshake are closed, and those over the connection cap at once', { timeout: 90_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'tls.key'), '-out', join(dir, 'tls.crt')], { stdio: 'ignore' });
    const { daemon, address } = await startWithWebConfig('tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n', dir);
    const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
    const sockets: Socket[] = [];
    let closed = 0;
    try {
      const extra = 8;
      for (let i = 0; i < MAX_CONNECTIONS + extra; i++) {
        const socket = connectTcp({ host, port });
        socket.on('error', () => undefined);
        socket.on('close', () => closed++);
        sockets.push(socket); // connected, and silent: no ClientHello ever
      }
      await waitFor('the sockets over the cap closed', () => closed >= extra, 30_000);
      const closedFirst = closed;
      expect(closedFirst).toBeLessThan(MAX_CONNECTIONS + extra); // the cap acted before any handshake timeout
      await waitFor('every silent socket closed by the handshake timeout', () => closed === MAX_CONNECTIONS + extra, 60_000);
      // and the daemon still serves TLS
      const res = await request(`https://${address}/-/healthy`, { dispatcher: new Agent({ connect: { ca: readFileSync(join(dir, 'tls.crt')) } }) });
      expect(res.statusCode).toBe(200);
      await res.body.dump();
    } finally {
      for (const socket of sockets) socket.destroy();
      daemon.child.kill('SIGKILL');
    }
  });
});
