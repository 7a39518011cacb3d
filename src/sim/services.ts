/**
 * Simulated hosted APIs: the Data API (health, chains, latest blocks, network details, validator
 * records) and the Metrics API (health, average TPS), answering with the shapes of the published
 * OpenAPI specs, with rate-limit headers and switchable scenarios.
 */
import { createHash } from 'node:crypto';
import type { SimNetwork } from './network.js';
import type { SimNode } from './node.js';
import { SIM_STAKE_BY_VERSION } from './validator.js';

export const SERVICE_SCENARIOS = {
  healthy: 'status ok, every component up',
  degraded: '503 with a Terminus report: the cache is down',
  down: '503 with the documented error body {message, statusCode, error}',
  'rate-limited': '429 with ratelimit-* and Retry-After headers (set retryAfterSeconds)',
  unauthorized: '401 whose message echoes the API key (to prove it is redacted)',
} as const;
export type ServiceScenario = keyof typeof SERVICE_SCENARIOS;

export function isServiceScenario(name: string): name is ServiceScenario {
  return Object.hasOwn(SERVICE_SCENARIOS, name);
}

export interface SimResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

const WINDOW_SECONDS = 60;

const ERROR_NAMES: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 404: 'Not Found', 429: 'Too Many Requests', 503: 'Service Unavailable' };

export function errorBody(status: number, message: string | string[]): SimResponse {
  return { status, headers: {}, body: { message, statusCode: status, error: ERROR_NAMES[status] ?? 'Error' } };
}

/** Shared by both simulated services: scenario, rate-limit window, request log. */
abstract class SimService {
  scenario: ServiceScenario = 'healthy';
  retryAfterSeconds = 30;
  /** Every request received, as `METHOD path?query` (tests read it through GET /sim/services). */
  readonly requests: string[] = [];
  private windowStart = Date.now();
  private used = 0;

  constructor(readonly kind: 'data-api' | 'metrics-api') {}

  handle(method: string, url: URL, headers: Record<string, string | string[] | undefined>): SimResponse {
    this.requests.push(`${method} ${url.pathname}${url.search}`);
    const now = Date.now();
    if (now - this.windowStart >= WINDOW_SECONDS * 1000) [this.windowStart, this.used] = [now, 0];
    this.used++;
    const apiKey = headers['x-glacier-api-key'];
    const limit = apiKey ? 1000 : 100;
    const reset = Math.ceil((this.windowStart + WINDOW_SECONDS * 1000 - now) / 1000);
    const rateHeaders = { 'ratelimit-policy': `${limit};w=${WINDOW_SECONDS}`, 'ratelimit-limit': String(limit), 'ratelimit-remaining': String(Math.max(0, limit - this.used)), 'ratelimit-reset': String(reset) };
    let response: SimResponse;
    if (this.scenario === 'rate-limited') {
      response = errorBody(429, 'ThrottlerException: Too Many Requests');
      response.headers = { ...rateHeaders, 'ratelimit-remaining': '0', 'ratelimit-reset': String(this.retryAfterSeconds), 'retry-after': String(this.retryAfterSeconds) };
      return response;
    }
    if (this.scenario === 'unauthorized') response = errorBody(401, `Invalid API key: ${String(apiKey ?? '(none)')}`);
    else response = this.route(method, url, now);
    response.headers = { ...rateHeaders, ...response.headers };
    return response;
  }

  protected healthReport(): SimResponse {
    if (this.scenario === 'down') return errorBody(503, 'Service Unavailable');
    if (this.scenario === 'degraded') {
      const cache = { status: 'down', message: 'Connection is closed.' };
      return { status: 503, headers: {}, body: { status: 'error', info: { database: { status: 'up' } }, error: { cache }, details: { database: { status: 'up' }, cache } } };
    }
    const up = { database: { status: 'up' }, cache: { status: 'up' } };
    return { status: 200, headers: {}, body: { status: 'ok', info: up, error: {}, details: up } };
  }

  protected abstract route(method: string, url: URL, now: number): SimResponse;
}

export class SimDataApi extends SimService {
  /** The largest page the simulated API returns, whatever pageSize asks for. */
  maxPageSize = 100;

  constructor(
    private readonly network: SimNetwork,
    private readonly nodes: () => SimNode[],
  ) {
    super('data-api');
  }

  protected route(method: string, url: URL, now: number): SimResponse {
    const path = url.pathname;
    if (method !== 'GET') return errorBody(404, `Cannot ${method} ${path}`);
    if (path === '/v1/health-check' || path === '/v1/live-check') return this.healthReport();
    let m: RegExpExecArray | null;
    if (path === '/v1/chains') return ok({ chains: this.evmChains().map((c) => this.chainInfo(c.evmChainId!)) });
    if ((m = /^\/v1\/chains\/(\d+)$/.exec(path))) {
      return this.network.byEvmChainId(m[1]!) ? ok(this.chainInfo(m[1]!)) : errorBody(404, `Chain ${m[1]} not found`);
    }
    if ((m = /^\/v1\/chains\/(\d+)\/blocks$/.exec(path))) return this.latestBlocks(m[1]!, url, now);
    if ((m = /^\/v1\/networks\/(mainnet|fuji)$/.exec(path))) return ok(this.networkDetails());
    if ((m = /^\/v1\/networks\/(mainnet|fuji)\/validators\/([^/]+)$/.exec(path))) return this.validator(decodeURIComponent(m[2]!), url);
    return errorBody(404, `Cannot GET ${path}`);
  }

  private evmChains() {
    return [...this.network.chains.values()].filter((c) => c.evmChainId);
  }

  private chainInfo(evmChainId: string) {
    const chain = this.network.byEvmChainId(evmChainId)!;
    const isC = chain.check === 'C';
    return {
      chainId: evmChainId,
      status: 'OK',
      chainName: chain.name,
      description: isC ? 'The Contract Chain on Avalanche Mainnet.' : `Simulated L1 ${chain.name}`,
      platformChainId: isC ? '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5' : chain.check,
      subnetId: isC ? '11111111111111111111111111111111LpoYY' : `${chain.check.slice(0, 20)}Subnet`,
      vmId: 'mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6',
      vmName: 'EVM',
      rpcUrl: isC ? 'https://api.avax.network/ext/bc/C/rpc' : `https://rpc.example/${evmChainId}`,
      isTestnet: false,
      networkToken: { name: 'Avalanche', symbol: 'AVAX', decimals: 18 },
    };
  }

  private latestBlocks(evmChainId: string, url: URL, now: number): SimResponse {
    const chain = this.network.byEvmChainId(evmChainId);
    if (!chain) return errorBody(404, `Chain ${evmChainId} not found`);
    const pageSize = Math.min(100, Math.max(1, Number(url.searchParams.get('pageSize') ?? 10)));
    const latest = this.network.height(chain.check, now);
    const hash = (n: number) => `0x${createHash('sha256').update(`${evmChainId}:${n}`).digest('hex')}`;
    const blocks = Array.from({ length: pageSize }, (_, i) => {
      const n = latest - i;
      return {
        chainId: evmChainId,
        blockNumber: String(n),
        blockTimestamp: Math.floor((this.network.startMs + (n - chain.base) * chain.blockMs) / 1000),
        blockHash: hash(n),
        txCount: 7 + (n % 13),
        baseFee: '25000000000',
        gasUsed: '1200000',
        gasLimit: '15000000',
        gasCost: '0',
        parentHash: hash(n - 1),
        feesSpent: '30000000000000000',
        cumulativeTransactions: String(n * 9),
      };
    });
    return ok({ blocks, nextPageToken: Buffer.from(String(latest - pageSize)).toString('base64url') });
  }

  private networkDetails() {
    const validators = this.nodes().filter((n) => n.validator).length;
    return {
      validatorDetails: {
        validatorCount: 1_400 + validators,
        totalAmountStaked: '219000000000000000',
        estimatedAnnualStakingReward: '16000000000000000',
        stakingDistributionByVersion: SIM_STAKE_BY_VERSION,
        stakingRatio: '0.4912',
      },
      delegatorDetails: { delegatorCount: 38_000 + validators * 3, totalAmountStaked: '21000000000000000' },
    };
  }

  /** Past validations (completed) and the current one (active), oldest first, paged by pageSize. */
  private validator(nodeId: string, url: URL): SimResponse {
    const node = this.nodes().find((n) => n.nodeId === nodeId);
    const records = node?.validator ? validationsOf(node) : [];
    const pageSize = Math.min(this.maxPageSize, Math.max(1, Number(url.searchParams.get('pageSize') ?? 10)));
    const offset = Number(Buffer.from(url.searchParams.get('pageToken') ?? '', 'base64url').toString() || 0);
    const page = records.slice(offset, offset + pageSize);
    const next = offset + pageSize < records.length ? { nextPageToken: Buffer.from(String(offset + pageSize)).toString('base64url') } : {};
    return ok({ ...next, validators: page });
  }
}

function validationsOf(node: SimNode) {
  const end = Math.floor(node.validationEndsAt);
  const base = { nodeId: node.nodeId, subnetId: '11111111111111111111111111111111LpoYY', amountStaked: '2000000000000', delegationFee: '2.0' };
  const tx = (i: number) => createHash('sha256').update(`${node.nodeId}:${i}`).digest('hex').slice(0, 48);
  const completed = (i: number, start: number, finish: number) => ({
    ...base,
    txHash: tx(i),
    startTimestamp: start,
    endTimestamp: finish,
    delegatorCount: 2,
    amountDelegated: '50000000000',
    rewards: { validationRewardAmount: '38000000000', delegationRewardAmount: '1000000000' },
    validationStatus: 'completed',
  });
  node.economics.settlePeriods();
  const start = node.economics.validationStartsAt;
  // Earlier validations of the node (paid), then those the simulator saw end (sim/periods.ts), oldest first.
  const history = [completed(2, start - 800 * 86400, start - 400 * 86400), completed(1, start - 400 * 86400, start), ...node.economics.periods.completed(node.nodeId).reverse()];
  if (!node.economics.isPrimaryValidator) return history;
  // The provider's own node sees what the node's peers see (the scenario's uptime).
  const { rewarding, weighted } = node.economics.uptimePercents();
  // A few small validators not connected keep a healthy node's rewarding stake just under 100 %: reachable all the same.
  const degraded = rewarding < 80;
  return [
    ...history,
    {
      ...base,
      txHash: tx(0),
      startTimestamp: start,
      endTimestamp: end,
      stakePercentage: 0.0009,
      delegatorCount: 4,
      amountDelegated: '120000000000',
      uptimePerformance: weighted,
      avalancheGoVersion: node.economics.version,
      delegationCapacity: '8000000000000',
      potentialRewards: { validationRewardAmount: '41000000000', delegationRewardAmount: '2000000000' },
      validationStatus: 'active',
      validatorHealth: { reachabilityPercent: degraded ? rewarding : 100, benchedPChainRequestsPercent: 0, benchedXChainRequestsPercent: 0, benchedCChainRequestsPercent: degraded ? 12.5 : 0 },
      geolocation: null,
    },
  ];
}

export class SimMetricsApi extends SimService {
  constructor(private readonly network: SimNetwork) {
    super('metrics-api');
  }

  protected route(method: string, url: URL): SimResponse {
    const path = url.pathname;
    if (method !== 'GET') return errorBody(404, `Cannot ${method} ${path}`);
    if (path === '/v2/health-check' || path === '/v2/live-check') return this.healthReport();
    const m = /^\/v2\/chains\/([^/]+)\/rollingWindowMetrics\/avgTps$/.exec(path);
    if (m) {
      const chain = this.network.byEvmChainId(m[1]!);
      if (!chain) return errorBody(404, `Chain ${m[1]} not supported`);
      const tps = chain.check === 'C' ? 18.4 : 2.25;
      return ok({ result: { lastHour: tps, lastDay: tps * 0.92, lastWeek: tps * 0.9, lastMonth: tps * 0.85, last90Days: tps * 0.8, lastYear: tps * 0.7, allTime: tps * 0.6 } });
    }
    return errorBody(404, `Cannot GET ${path}`);
  }
}

function ok(body: unknown): SimResponse {
  return { status: 200, headers: {}, body };
}
