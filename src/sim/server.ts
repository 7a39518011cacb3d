/**
 * Serves simulated nodes over real HTTP on one port: node N at `/nodes/N/ext/health…` (the first
 * node also at `/ext/health…`), plus a control API to switch scenarios at runtime:
 *   GET  /sim/nodes                      the nodes, their scenario, NodeID and base URL
 *   POST /sim/nodes/{name}/scenario      {"scenario": "network-down", "also"?: ["disk-low"], "delayMs"?: 8000}
 *                                        (also: conditions that hold at the same time, none unless given)
 *                                        (validator scenarios also take rewardingStakePercent,
 *                                        weightedAveragePercent, l1BalanceNAvax, networkId,
 *                                        nextPeriodSeconds, delegators, l1Balances: the balances in
 *                                        nAVAX of the node's L1 validations, one per validation)
 *                                        (upgrade-required takes upgradeIn seconds, upgradeStakePercent;
 *                                        409 when due before an upgrade the node's build knows; leaving it with
 *                                        "forgotLocalUpgradeTime": true installs a build that knows the upgrade
 *                                        in info.upgrades whose futureupgrade localUpgradeTime was not moved);
 *                                        publicIp: the IP:port info.getNodeIP answers from now on;
 *                                        version: the build it runs ("avalanchego/1.14.2": from before Helicon,
 *                                        dropped by its upgraded peers past the activation), null: its scenario's
 *   POST /sim/scenario                   the same body, for every node
 *   POST /sim/network                    {"dip": {"connectedPercent": 70}} every node loses its connection to
 *                                        validators holding 30 % of the stake at once; observed uptimes then fall
 *                                        only as disconnected time accumulates (sim/observed.ts); {"dip": null} ends it;
 *                                        {"uptimeClockFactor": 1} validation time per real second from now on (1 = real time);
 *                                        {"bootstrapping": {"stakePercent": 30}} upgrade day: other validators holding up to 30 % of
 *                                        the stake are bootstrapping, connected, and their Pings say 0 % for everyone
 *                                        (network/peer/peer.go getUptime, snow/uptime/locked_calculator.go); null ends it
 *   POST /sim/nodes/{name}/restart       {"l1"?: false, "snapshotSeconds"?: 30, "ingressGraceSeconds"?: 600, "downSeconds"?: 600, "bootstrapSeconds"?: 18}
 *                                        restart, optionally dropping (or adding) the L1 chain; info.uptime reads a restart's
 *                                        snapshot that long; the ingress grace (--network-no-ingress-connections-grace-period)
 *                                        starts over; downSeconds: it was stopped that long before (its peers measured it down);
 *                                        bootstrapSeconds (default 60 % of the snapshot): a v1.15 node's info.uptime answers
 *                                        "couldn't get node uptime: … still bootstrapping" that long, then mid-climb;
 *                                        info.isBootstrapped {"chain": "P"} says false meanwhile. "resync": true: from an
 *                                        empty database: meanwhile info.uptime says "node is not a validator" and the
 *                                        P-Chain lists lack this validation (the height replayed), on any version
 * and the hosted APIs at `/data-api/…` and `/metrics-api/…`:
 *   GET  /sim/services                   their scenario and every request they received
 *   POST /sim/services/{data-api|metrics-api}/scenario   {"scenario": "degraded", "retryAfterSeconds"?: 30}
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { goJson } from './go-format.js';
import { SimNode, type HealthReply, type SimNodeOptions } from './node.js';
import { isScenario, SCENARIOS, type ScenarioName } from './scenarios.js';
import { SimNetwork } from './network.js';
import { isServiceScenario, SERVICE_SCENARIOS, SimDataApi, SimMetricsApi, type SimResponse } from './services.js';

/** The JSON-RPC APIs validator economics reads (src/sim/validator.ts answers them). */
const VALIDATOR_APIS = ['/ext/info', '/ext/bc/P'];
/** The C-Chain's EVM JSON-RPC (geth's server: positional params, `-32601` for an unknown method). */
const C_RPC = '/ext/bc/C/rpc';

const PROXY_502 = `<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx/1.25.3</center>
</body>
</html>
`;

export class SimServer {
  readonly nodes = new Map<string, SimNode>();
  readonly network: SimNetwork;
  readonly dataApi: SimDataApi;
  readonly metricsApi: SimMetricsApi;
  private readonly server: Server;
  private firstNode?: SimNode;
  address?: AddressInfo;

  constructor(specs: SimNodeOptions[], options: { blockMs?: number; otherValidators?: number; uptimeClockFactor?: number } = {}) {
    this.network = new SimNetwork(options);
    this.dataApi = new SimDataApi(this.network, () => [...this.nodes.values()]);
    this.metricsApi = new SimMetricsApi(this.network);
    for (const spec of specs) {
      const node = new SimNode({ ...spec, network: this.network });
      this.nodes.set(node.name, node);
      this.firstNode ??= node;
    }
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) text(res, 500, `simulator error: ${String(err)}\n`);
      });
    });
    this.server.keepAliveTimeout = 30_000;
  }

  async listen(port = 0, host = '127.0.0.1'): Promise<AddressInfo> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
    this.address = this.server.address() as AddressInfo;
    return this.address;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.address!.port}`;
  }

  nodeUrl(name: string): string {
    return `${this.baseUrl}/nodes/${encodeURIComponent(name)}`;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim');
    const body = await readBody(req);
    if (url.pathname.startsWith('/sim/')) return this.control(req.method ?? 'GET', url.pathname, body, res);
    const service = /^\/(data-api|metrics-api)(\/.*)$/.exec(url.pathname);
    if (service) {
      const api = service[1] === 'data-api' ? this.dataApi : this.metricsApi;
      const inner = new URL(`${service[2]}${url.search}`, 'http://sim');
      return sendService(res, api.handle(req.method ?? 'GET', inner, req.headers));
    }
    let node = this.firstNode;
    let path = url.pathname;
    const prefixed = /^\/nodes\/([^/]+)(\/.*)?$/.exec(path);
    if (prefixed) {
      node = this.nodes.get(decodeURIComponent(prefixed[1]!));
      path = prefixed[2] ?? '/';
    }
    if (!node || !(path.startsWith('/ext/health') || VALIDATOR_APIS.includes(path) || path === C_RPC)) return text(res, 404, '404 page not found\n');
    return this.serveNode(node, req, res, path, url.searchParams, body);
  }

  private async serveNode(node: SimNode, req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, body: string): Promise<void> {
    node.requests++;
    node.mostInFlight = Math.max(node.mostInFlight, ++node.inFlight);
    try {
      await this.answerNode(node, req, res, path, query, body);
    } finally {
      node.inFlight--;
    }
  }

  private async answerNode(node: SimNode, req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, body: string): Promise<void> {
    if (node.has('reset')) return void req.socket.destroy();
    if (node.has('slow')) await new Promise((resolve) => setTimeout(resolve, node.slowDelayMs));
    if (res.destroyed) return;
    if (node.has('proxy-error')) return send(res, 502, 'text/html', PROXY_502);
    if (node.has('forbidden-host')) return text(res, 403, 'invalid host specified\n');
    if (node.has('not-found')) return text(res, 404, '404 page not found\n');
    if (node.has('rate-limited')) return send(res, 429, 'text/plain; charset=utf-8', 'Too Many Requests\n', { 'retry-after': '30' });
    // A proxy in front may strip the node-id header (the node-id-unknown scenario).
    const headers: Record<string, string> = node.has('node-id-unknown') ? {} : { 'node-id': node.nodeId };
    const method = req.method ?? 'GET';

    if (path === C_RPC) return this.evmRpc(node, res, method, body, headers);
    if ((path === '/ext/health' && method !== 'GET') || VALIDATOR_APIS.includes(path)) {
      if (method !== 'POST') return text(res, 405, `rpc: POST method required, received ${method}\n`, headers);
      return this.jsonRpc(node, req, res, path, body, headers);
    }
    let reply: HealthReply;
    switch (path) {
      case '/ext/health':
      case '/ext/health/health':
        reply = node.health(query.has('tag') ? query.getAll('tag') : undefined);
        break;
      case '/ext/health/readiness':
        reply = node.readiness();
        break;
      case '/ext/health/liveness':
        reply = node.liveness();
        break;
      default:
        return text(res, 404, '404 page not found\n');
    }
    return this.sendReply(node, res, reply.healthy ? 200 : 503, 'application/json', reply, headers);
  }

  private sendReply(node: SimNode, res: ServerResponse, status: number, contentType: string, value: unknown, headers: Record<string, string>): void {
    if (node.has('huge')) return send(res, 503, contentType, node.hugeReply(), headers);
    if (node.has('truncated')) {
      const full = goJson(value);
      return send(res, 200, contentType, full.slice(0, Math.floor(full.length / 2)), headers);
    }
    if (node.has('bad-shape')) return send(res, 200, contentType, '{"status":"ok","uptime":12345}\n', headers);
    return send(res, status, contentType, `${goJson(value)}\n`, headers);
  }

  /** The C-Chain's EVM JSON-RPC, as far as avahealth reads it: eth_blockNumber (the last executed block). */
  private evmRpc(node: SimNode, res: ServerResponse, method: string, body: string, headers: Record<string, string>): void {
    const contentType = 'application/json';
    if (method !== 'POST') return text(res, 405, 'method not allowed\n', headers);
    let request: { method?: unknown; id?: unknown };
    try {
      request = JSON.parse(body) as { method?: unknown; id?: unknown };
    } catch {
      return send(res, 200, contentType, '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}\n', headers);
    }
    const id = goJson(request.id ?? null);
    if (request.method !== 'eth_blockNumber') {
      return send(res, 200, contentType, `{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":${goJson(`the method ${String(request.method)} does not exist/is not available`)}}}\n`, headers);
    }
    return send(res, 200, contentType, `{"jsonrpc":"2.0","id":${id},"result":"0x${node.executedHeight().toString(16)}"}\n`, headers);
  }

  /** gorilla/rpc json2 as AvalancheGo runs it: HTTP 200 for every JSON-RPC outcome. */
  private jsonRpc(node: SimNode, req: IncomingMessage, res: ServerResponse, path: string, body: string, headers: Record<string, string>): void {
    const contentType = 'application/json; charset=utf-8';
    if (!req.headers['content-type']) return text(res, 415, 'rpc: unrecognized Content-Type: \n', headers);
    const rpcError = (code: number, message: string, id: unknown, data: unknown = null) =>
      send(res, 200, contentType, `${goJson({ jsonrpc: '2.0', error: { code, message, data }, id })}\n`, headers);
    let request: { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown };
    try {
      request = JSON.parse(body);
      if (typeof request !== 'object' || request === null || Array.isArray(request)) throw new Error('not an object');
    } catch (err) {
      return rpcError(-32700, `invalid character in request: ${(err as Error).message}`, null, { jsonrpc: '', method: '', params: null, id: null });
    }
    if (request.id === undefined) return send(res, 200, contentType, '', headers);
    if (request.jsonrpc !== '2.0') return rpcError(-32600, 'jsonrpc must be 2.0', request.id);
    const method = typeof request.method === 'string' ? request.method : '';
    const [service, name = ''] = method.split('.');
    if (/^[A-Z]/.test(name)) return rpcError(-32000, 'method must start with a non-uppercase letter', request.id);
    if (path !== '/ext/health') {
      const answer = node.economics.answer(path, method, Array.isArray(request.params) ? request.params[0] : request.params);
      if (answer === 'not-found') return text(res, 404, '404 page not found\n');
      if ('error' in answer) return rpcError(answer.error.code, answer.error.message, request.id);
      if ('rawResult' in answer) return send(res, 200, contentType, `{"jsonrpc":"2.0","result":${answer.rawResult},"id":${goJson(request.id)}}\n`, headers);
      return send(res, 200, contentType, `${goJson({ jsonrpc: '2.0', result: answer.result, id: request.id })}\n`, headers);
    }
    const capitalized = `${service}.${name.charAt(0).toUpperCase()}${name.slice(1)}`;
    if (service !== 'health' || !['health', 'readiness', 'liveness'].includes(name)) {
      return rpcError(-32000, `rpc: can't find method "${capitalized}"`, request.id);
    }
    let params = request.params;
    if (Array.isArray(params) && params.length === 1) params = params[0];
    let tags: string[] | undefined;
    if (params !== undefined && params !== null) {
      const rawTags = (params as { tags?: unknown }).tags;
      if (typeof params !== 'object' || Array.isArray(params) || (rawTags != null && (!Array.isArray(rawTags) || rawTags.some((t) => typeof t !== 'string')))) {
        return rpcError(-32000, "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls", request.id);
      }
      tags = rawTags ?? undefined;
    }
    if (node.has('rpc-error')) return rpcError(-32000, 'health check service unavailable', request.id);
    const id = node.has('wrong-id') ? (typeof request.id === 'number' ? request.id + 1000 : 'other') : request.id;
    const result = name === 'health' ? node.health(tags) : name === 'readiness' ? node.readiness() : node.liveness();
    return this.sendReply(node, res, 200, contentType, { jsonrpc: '2.0', result, id }, headers);
  }

  serviceUrl(kind: 'data-api' | 'metrics-api'): string {
    return `${this.baseUrl}/${kind}`;
  }

  private control(method: string, path: string, body: string, res: ServerResponse): void {
    if (method === 'GET' && path === '/sim/services') {
      const view = (api: SimDataApi | SimMetricsApi) => ({ scenario: api.scenario, requests: api.requests });
      return send(res, 200, 'application/json', JSON.stringify({ 'data-api': view(this.dataApi), 'metrics-api': view(this.metricsApi), scenarios: SERVICE_SCENARIOS }));
    }
    const serviceScenario = /^\/sim\/services\/(data-api|metrics-api)\/scenario$/.exec(path);
    if (method === 'POST' && serviceScenario) {
      const api = serviceScenario[1] === 'data-api' ? this.dataApi : this.metricsApi;
      const request = JSON.parse(body || '{}') as { scenario?: unknown; retryAfterSeconds?: unknown };
      const unknown = unknownFields(request, ['scenario', 'retryAfterSeconds']);
      if (unknown) return text(res, 400, unknown);
      const scenario = String(request.scenario);
      if (!isServiceScenario(scenario)) return text(res, 400, `unknown scenario "${scenario}"; known: ${Object.keys(SERVICE_SCENARIOS).join(', ')}\n`);
      api.scenario = scenario;
      if (typeof request.retryAfterSeconds === 'number') api.retryAfterSeconds = request.retryAfterSeconds;
      return send(res, 200, 'application/json', JSON.stringify({ ok: true, service: api.kind, scenario }));
    }
    if (method === 'GET' && path === '/sim/nodes') {
      const nodes = [...this.nodes.values()].map((n) => ({ name: n.name, scenario: n.scenario, also: n.also, nodeId: n.nodeId, url: this.nodeUrl(n.name), l1ChainId: n.l1ChainId, l1SubnetId: n.l1SubnetId }));
      return send(res, 200, 'application/json', JSON.stringify({ nodes, scenarios: SCENARIOS }));
    }
    if (method === 'POST' && path === '/sim/network') {
      let request: { dip?: { uptimePercent?: unknown; connectedPercent?: unknown } | null; uptimeClockFactor?: unknown; bootstrapping?: { stakePercent?: unknown } | null };
      try {
        request = JSON.parse(body || '{}');
      } catch {
        return text(res, 400, 'body must be JSON: {"dip": {"connectedPercent": 70}}\n');
      }
      const unknown =
        unknownFields(request, ['dip', 'uptimeClockFactor', 'bootstrapping']) ??
        (request.dip ? unknownFields(request.dip, ['connectedPercent', 'uptimePercent'], 'dip.') : undefined) ??
        (request.bootstrapping ? unknownFields(request.bootstrapping, ['stakePercent'], 'bootstrapping.') : undefined);
      if (unknown) return text(res, 400, unknown);
      const set = this.network.validators;
      if (request.uptimeClockFactor !== undefined) {
        const factor = request.uptimeClockFactor;
        if (typeof factor !== 'number' || !(factor > 0) || factor > 1e6) return text(res, 400, 'uptimeClockFactor must be a number above 0 (1 = real time)\n');
        set.setClockFactor(factor);
      }
      if (request.dip === null) this.network.setDip(undefined);
      else if (request.dip) {
        const { uptimePercent, connectedPercent } = request.dip;
        // AvalancheGo cannot make an uptime jump (snow/uptime/manager.go: it accrues with connected time).
        if (uptimePercent !== undefined) return text(res, 400, 'dip.uptimePercent is not accepted: observed uptime is cumulative and falls only with disconnected time; give dip.connectedPercent\n');
        if (typeof connectedPercent !== 'number' || connectedPercent < 0 || connectedPercent > 100) return text(res, 400, 'dip.connectedPercent must be a number from 0 to 100\n');
        this.network.setDip({ connectedPercent });
      }
      if (request.bootstrapping === null) set.setBootstrapping(undefined);
      else if (request.bootstrapping) {
        const { stakePercent } = request.bootstrapping;
        if (typeof stakePercent !== 'number' || stakePercent < 0 || stakePercent > 100) return text(res, 400, 'bootstrapping.stakePercent must be a number from 0 to 100\n');
        set.setBootstrapping({ stakePercent });
      }
      return send(res, 200, 'application/json', JSON.stringify({ ok: true, dip: set.dip ?? null, bootstrapping: set.bootstrapping ?? null, uptimeClockFactor: set.clockFactor }));
    }
    const restart = /^\/sim\/nodes\/([^/]+)\/restart$/.exec(path);
    if (method === 'POST' && restart) {
      const node = this.nodes.get(decodeURIComponent(restart[1]!));
      if (!node) return text(res, 404, 'unknown node\n');
      const request = JSON.parse(body || '{}') as { l1?: unknown; snapshotSeconds?: unknown; ingressGraceSeconds?: unknown; downSeconds?: unknown; bootstrapSeconds?: unknown; resync?: unknown };
      const unknown = unknownFields(request, ['l1', 'snapshotSeconds', 'ingressGraceSeconds', 'downSeconds', 'bootstrapSeconds', 'resync']);
      if (unknown) return text(res, 400, unknown);
      const grace = request.ingressGraceSeconds;
      if (typeof grace === 'number' && grace >= 0 && grace <= 86_400) node.ingressGraceMs = grace * 1000;
      const snapshot = typeof request.snapshotSeconds === 'number' && request.snapshotSeconds >= 0 && request.snapshotSeconds <= 3600 ? { snapshotMs: request.snapshotSeconds * 1000 } : {};
      const down = typeof request.downSeconds === 'number' && request.downSeconds >= 0 && request.downSeconds <= 366 * 86_400 ? { downSeconds: request.downSeconds } : {};
      const bootstrap = typeof request.bootstrapSeconds === 'number' && request.bootstrapSeconds >= 0 && request.bootstrapSeconds <= 3600 ? { bootstrapMs: request.bootstrapSeconds * 1000 } : {};
      node.restartNode({ ...(typeof request.l1 === 'boolean' ? { l1: request.l1 } : {}), ...snapshot, ...down, ...bootstrap, ...(request.resync === true ? { resync: true } : {}) });
      return send(res, 200, 'application/json', JSON.stringify({ ok: true, node: node.name, l1ChainId: node.l1ChainId ?? null }));
    }
    const one = /^\/sim\/nodes\/([^/]+)\/scenario$/.exec(path);
    if (method !== 'POST' || (!one && path !== '/sim/scenario')) return text(res, 404, 'unknown control route\n');
    let request: {
      scenario?: unknown;
      also?: unknown;
      delayMs?: unknown;
      lagBlocks?: unknown;
      validationEndsIn?: unknown;
      validationStartedAgo?: unknown;
      uptimeRequirement?: unknown;
      rewardingStakePercent?: unknown;
      weightedAveragePercent?: unknown;
      l1BalanceNAvax?: unknown;
      l1Balances?: unknown;
      upgradeIn?: unknown;
      publicIp?: unknown;
      version?: unknown;
      upgradeStakePercent?: unknown;
      forgotLocalUpgradeTime?: unknown;
      networkId?: unknown;
      nextPeriodSeconds?: unknown;
      delegators?: unknown;
    };
    try {
      request = JSON.parse(body || '{}');
    } catch {
      return text(res, 400, 'body must be JSON: {"scenario": "…"}\n');
    }
    const unknown = unknownFields(request, SCENARIO_FIELDS);
    if (unknown) return text(res, 400, unknown);
    const scenario = String(request.scenario);
    if (!isScenario(scenario)) return text(res, 400, `unknown scenario "${scenario}"; known: ${Object.keys(SCENARIOS).join(', ')}\n`);
    const also = request.also ?? [];
    if (!Array.isArray(also) || also.length > 8) return text(res, 400, 'also must be a list of at most 8 scenarios\n');
    for (const name of also) if (typeof name !== 'string' || !isScenario(name)) return text(res, 400, `unknown scenario "${String(name)}" in also\n`);
    const targets = one ? [this.nodes.get(decodeURIComponent(one[1]!))] : [...this.nodes.values()];
    if (targets.some((n) => n === undefined)) return text(res, 404, 'unknown node\n');
    // Left behind by an upgrade: only one no earlier than every upgrade its build knows (checked before
    // anything changes). A node already left behind may move its own deadline: an accelerated week's
    // way of letting its time pass.
    if (scenario === 'upgrade-required' || also.includes('upgrade-required')) {
      for (const node of targets as SimNode[]) {
        const at = typeof request.upgradeIn === 'number' ? Math.floor(Date.now() / 1000 + request.upgradeIn) : node.upgradeAt;
        const impossible = node.has('upgrade-required') ? undefined : node.cannotLackUpgradeAt(at);
        if (impossible) return text(res, 409, `${impossible}\n`);
      }
    }
    const forgotLocalUpgradeTime = request.forgotLocalUpgradeTime === true;
    if (request.forgotLocalUpgradeTime !== undefined && typeof request.forgotLocalUpgradeTime !== 'boolean') return text(res, 400, 'forgotLocalUpgradeTime must be true or false\n');
    if (forgotLocalUpgradeTime && (targets as SimNode[]).some((n) => !n.has('upgrade-required') || scenario === 'upgrade-required' || also.includes('upgrade-required')))
      return text(res, 400, 'forgotLocalUpgradeTime is the build installed on leaving upgrade-required: give it with another scenario, to a node in upgrade-required\n');
    for (const node of targets as SimNode[]) {
      if (typeof request.delayMs === 'number') node.slowDelayMs = request.delayMs;
      if (typeof request.lagBlocks === 'number') node.lagBlocks = request.lagBlocks;
      if (typeof request.validationEndsIn === 'number') node.validationEndsAt = Date.now() / 1000 + request.validationEndsIn;
      if (typeof request.upgradeIn === 'number') node.upgradeAt = Math.floor(Date.now() / 1000 + request.upgradeIn);
      if (typeof request.upgradeStakePercent === 'number') node.upgradeStakePercent = request.upgradeStakePercent;
      if (request.version === null) delete node.economics.build;
      else if (typeof request.version === 'string' && /^avalanchego\/\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(request.version)) node.economics.build = request.version;
      node.setScenario(scenario, Date.now(), also as ScenarioName[], { forgotLocalUpgradeTime });
      // After the switch: the scenario sets its own balance, these values override it.
      if (typeof request.rewardingStakePercent === 'number') node.economics.rewardingStakePercent = request.rewardingStakePercent;
      if (typeof request.weightedAveragePercent === 'number') node.economics.weightedAveragePercent = request.weightedAveragePercent;
      if (typeof request.l1BalanceNAvax === 'number') node.economics.setL1Balance(request.l1BalanceNAvax);
      if (Array.isArray(request.l1Balances) && request.l1Balances.length <= 100 && request.l1Balances.every((b) => typeof b === 'number' && b >= 0)) node.economics.setL1Balances(request.l1Balances as number[]);
      if (typeof request.networkId === 'number' && Number.isInteger(request.networkId) && request.networkId > 0) node.economics.networkId = request.networkId;
      if (typeof request.nextPeriodSeconds === 'number' && request.nextPeriodSeconds >= 0) node.economics.nextPeriodSeconds = Math.floor(request.nextPeriodSeconds);
      if (typeof request.validationStartedAgo === 'number' && request.validationStartedAgo >= 0) node.economics.startedAgo(request.validationStartedAgo);
      if (typeof request.publicIp === 'string' && /^[\d.]{7,15}:\d{1,5}$/.test(request.publicIp)) node.economics.publicIp = request.publicIp;
      if (typeof request.uptimeRequirement === 'number' && request.uptimeRequirement > 0 && request.uptimeRequirement <= 1) node.economics.uptimeRequirement = request.uptimeRequirement;
      if (typeof request.delegators === 'number' && request.delegators >= 0 && request.delegators <= 200_000) node.economics.delegators = Math.floor(request.delegators);
    }
    return send(res, 200, 'application/json', JSON.stringify({ ok: true, scenario, nodes: (targets as SimNode[]).map((n) => n.name) }));
  }
}

/** The fields POST /sim/nodes/{name}/scenario and /sim/scenario take. */
const SCENARIO_FIELDS = ['scenario', 'also', 'delayMs', 'lagBlocks', 'validationEndsIn', 'rewardingStakePercent', 'weightedAveragePercent', 'l1BalanceNAvax', 'l1Balances', 'upgradeIn', 'upgradeStakePercent', 'forgotLocalUpgradeTime', 'networkId', 'nextPeriodSeconds', 'delegators', 'validationStartedAgo', 'uptimeRequirement', 'publicIp', 'version'];

/** A control request naming a field the route does not take is refused (a typo would otherwise do nothing, silently). */
function unknownFields(request: object, known: readonly string[], prefix = ''): string | undefined {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) return `body must be a JSON object${prefix ? ` at ${prefix.slice(0, -1)}` : ''}\n`;
  const unknown = Object.keys(request).filter((name) => !known.includes(name));
  if (unknown.length === 0) return undefined;
  return `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((name) => `"${prefix}${name}"`).join(', ')}; this route takes ${known.map((name) => prefix + name).join(', ')}\n`;
}

function sendService(res: ServerResponse, response: SimResponse): void {
  send(res, response.status, 'application/json; charset=utf-8', JSON.stringify(response.body), response.headers);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 1 << 20) chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, contentType: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

function text(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  send(res, status, 'text/plain; charset=utf-8', body, headers);
}
