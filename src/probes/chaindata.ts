/**
 * The chain-data source: what only the network can tell about a node, from the Data API and the
 * Metrics API: the latest block of each followed EVM chain (one request per chain, shared by every
 * node), chain status, network totals, average TPS, and each known NodeID's validator record
 * (cached for validator_interval, paginated). One job for the whole config; each refresh builds a
 * new snapshot from the last one in the store and records it there.
 */
import { C_CHAIN, type ChainDataConfig, type Config, type NodeTarget, type ServiceTarget } from '../config/load.js';
import { ProbeError } from '../transport/client.js';
import { emptySnapshot, VALIDATOR_STATUSES, type ChainDataSnapshot, type ChainInfo, type ValidatorInfo, type ValidatorStatus } from '../model/chaindata.js';
import { isObject } from '../parse/avalanchego.js';
import { parseCompletedValidations } from '../parse/rewards.js';
import { epochSeconds, parseStakingDistribution, parseValidatorRecordHealth, parseValidatorRecordTimes, unsigned } from '../parse/validator.js';
import { redact } from '../util/text.js';
import { parseJson } from './exchange.js';
import { callService, serviceError } from './service.js';
import type { ProbeContext, Prober } from './types.js';

export interface ChainDataSubject {
  config: ChainDataConfig;
  services: ReadonlyMap<string, ServiceTarget>;
  nodes: readonly NodeTarget[];
}

/** Scheduler key of the chain-data job (target names cannot contain `@`). */
export const CHAIN_DATA_JOB = '@chaindata';

export const chainDataProber: Prober<ChainDataSubject> = {
  jobs: (config: Config) =>
    config.chainData
      ? [
          {
            key: CHAIN_DATA_JOB,
            kind: 'chaindata',
            intervalMs: config.chainData.intervalMs,
            subject: { config: config.chainData, services: new Map(config.services.map((s) => [s.name, s])), nodes: config.nodes },
          },
        ]
      : [],
  probe: async (subject, ctx) => ({ chainData: await new Refresh(subject, ctx).run() }),
};

const MAX_VALIDATOR_PAGES = 10;

/** One refresh: reads into a copy of the last snapshot (validator records are reused while fresh). */
class Refresh {
  private readonly snapshot: ChainDataSnapshot;
  private readonly config: ChainDataConfig;

  constructor(
    private readonly subject: ChainDataSubject,
    private readonly ctx: ProbeContext,
  ) {
    this.config = subject.config;
    const last = ctx.store.chainData ?? emptySnapshot();
    this.snapshot = {
      chains: new Map([...last.chains].filter(([id]) => this.config.evmChains.includes(id)).map(([id, c]) => [id, { ...c }])),
      validators: new Map(last.validators),
      networks: new Map(last.networks),
      errors: last.errors,
      ...(last.refreshedAt !== undefined ? { refreshedAt: last.refreshedAt } : {}),
    };
  }

  async run(): Promise<ChainDataSnapshot> {
    const started = this.ctx.now();
    const errors: string[] = [];
    let answered = false;
    const attempt = async (what: string, service: ServiceTarget, fn: () => Promise<void>) => {
      try {
        await fn();
        answered = true;
      } catch (err) {
        const text = redact(err instanceof Error ? err.message : String(err), service.secrets);
        errors.push(`${what}: ${text}`);
      }
    };
    const dataApi = this.config.dataApi ? this.subject.services.get(this.config.dataApi) : undefined;
    const metricsApi = this.config.metricsApi && this.config.tps ? this.subject.services.get(this.config.metricsApi) : undefined;
    const network = this.config.network;
    for (const id of this.config.evmChains) {
      if (!this.snapshot.chains.has(id)) this.snapshot.chains.set(id, { evmChainId: id, network, ...(id === C_CHAIN[network] ? { check: 'C' } : {}) });
    }

    if (dataApi) {
      await attempt('chains', dataApi, () => this.readChainList(dataApi));
      for (const chain of this.snapshot.chains.values()) {
        if (chain.platformChainId === undefined && chain.evmChainId !== C_CHAIN[network]) {
          await attempt(`chain ${chain.evmChainId}`, dataApi, () => this.readChain(dataApi, chain));
        }
        await attempt(`latest block of ${chain.evmChainId}`, dataApi, () => this.readLatestBlock(dataApi, chain));
      }
      for (const net of this.networks()) await attempt(`network ${net}`, dataApi, () => this.readNetwork(dataApi, net));
      if (this.config.validators) await this.readValidators(dataApi, attempt);
    }
    if (metricsApi) {
      for (const chain of this.snapshot.chains.values()) await attempt(`avgTps of ${chain.evmChainId}`, metricsApi, () => this.readTps(metricsApi, chain));
    }
    const log = this.ctx.log;
    if (errors.join('\n') !== this.snapshot.errors.join('\n')) {
      if (errors.length > 0) log.warn({ errors }, 'chain data refresh incomplete');
      else log.info('chain data refresh complete');
    }
    const durationSeconds = (this.ctx.now() - started) / 1000;
    log.debug({ source: 'chaindata', chains: this.snapshot.chains.size, validators: this.snapshot.validators.size, errors: errors.length, durationSeconds }, 'chain data refreshed');
    this.snapshot.errors = errors;
    // A refresh where every request failed (a revoked API key) refreshed nothing: the freshness stays.
    if (answered || errors.length === 0) this.snapshot.refreshedAt = this.ctx.now() / 1000;
    return this.snapshot;
  }

  private networks(): string[] {
    return [...new Set<string>([this.config.network, ...this.subject.nodes.map((n) => n.network)])];
  }

  private async getJson(service: ServiceTarget, path: string): Promise<Record<string, unknown>> {
    const response = await callService(service, { path }, this.ctx);
    if (response.status !== 200) throw serviceError(response);
    const json = parseJson(response);
    if (!isObject(json)) throw new ProbeError('bad_shape', 'expected a JSON object');
    return json;
  }

  private async readChainList(service: ServiceTarget): Promise<void> {
    const json = await this.getJson(service, `/v1/chains?network=${this.config.network}`);
    if (!Array.isArray(json.chains)) throw new ProbeError('bad_shape', '"chains" must be an array');
    for (const item of json.chains) {
      if (!isObject(item)) continue;
      const chain = this.snapshot.chains.get(String(item.chainId));
      if (chain) applyChainInfo(chain, item);
    }
  }

  private async readChain(service: ServiceTarget, chain: ChainInfo): Promise<void> {
    applyChainInfo(chain, await this.getJson(service, `/v1/chains/${encodeURIComponent(chain.evmChainId)}`));
  }

  private async readLatestBlock(service: ServiceTarget, chain: ChainInfo): Promise<void> {
    const json = await this.getJson(service, `/v1/chains/${encodeURIComponent(chain.evmChainId)}/blocks?pageSize=1`);
    const block = Array.isArray(json.blocks) && isObject(json.blocks[0]) ? json.blocks[0] : undefined;
    if (!block) throw new ProbeError('bad_shape', 'no blocks in the response');
    const height = Number(block.blockNumber);
    if (!Number.isSafeInteger(height) || height < 0) throw new ProbeError('bad_shape', `blockNumber ${JSON.stringify(block.blockNumber)?.slice(0, 60)} is not a height`);
    const timestamp = block.blockTimestamp === undefined ? undefined : epochSeconds(block.blockTimestamp);
    if (block.blockTimestamp !== undefined && timestamp === undefined) throw new ProbeError('bad_shape', `blockTimestamp ${JSON.stringify(block.blockTimestamp)?.slice(0, 60)} is not a time`);
    chain.height = height;
    if (timestamp !== undefined) chain.blockTimestamp = timestamp;
  }

  private async readNetwork(service: ServiceTarget, network: string): Promise<void> {
    const json = await this.getJson(service, `/v1/networks/${network}`);
    const validators = unsigned(isObject(json.validatorDetails) ? json.validatorDetails.validatorCount : undefined);
    const delegators = unsigned(isObject(json.delegatorDetails) ? json.delegatorDetails.delegatorCount : undefined);
    // The stake per version is read on its own: a bad row costs the version series, not the totals.
    const versionStake = parseStakingDistribution(json);
    this.snapshot.networks.set(network, {
      ...(typeof validators === 'number' ? { validators } : {}),
      ...(typeof delegators === 'number' ? { delegators } : {}),
      ...(versionStake.ok && versionStake.value.length > 0 ? { versionStake: versionStake.value } : {}),
    });
    if (!versionStake.ok) throw new ProbeError('bad_shape', `stakingDistributionByVersion: ${versionStake.error}`);
  }

  /** One record per known NodeID, re-read at most every validator_interval. */
  private async readValidators(service: ServiceTarget, attempt: (what: string, s: ServiceTarget, fn: () => Promise<void>) => Promise<void>): Promise<void> {
    const now = this.ctx.now() / 1000;
    const known = new Set<string>();
    for (const node of this.subject.nodes) {
      const nodeId = node.nodeId ?? this.ctx.store.get(node.name)?.nodeId;
      if (!nodeId) continue;
      known.add(nodeId);
      const cached = this.snapshot.validators.get(nodeId);
      if (cached && now - cached.checkedAt < this.config.validatorIntervalMs / 1000) continue;
      await attempt(`validator ${nodeId}`, service, async () => {
        this.snapshot.validators.set(nodeId, await this.readValidator(service, node, nodeId, now));
      });
    }
    for (const nodeId of this.snapshot.validators.keys()) if (!known.has(nodeId)) this.snapshot.validators.delete(nodeId);
  }

  private async readValidator(service: ServiceTarget, node: NodeTarget, nodeId: string, now: number): Promise<ValidatorInfo> {
    const records: Array<Record<string, unknown>> = [];
    let pageToken: string | undefined;
    for (let page = 0; page < MAX_VALIDATOR_PAGES; page++) {
      const query = `pageSize=100${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`;
      const json = await this.getJson(service, `/v1/networks/${node.network}/validators/${encodeURIComponent(nodeId)}?${query}`);
      if (!Array.isArray(json.validators)) throw new ProbeError('bad_shape', '"validators" must be an array');
      records.push(...json.validators.filter(isObject));
      pageToken = typeof json.nextPageToken === 'string' && json.nextPageToken !== '' ? json.nextPageToken : undefined;
      if (!pageToken) break;
    }
    const current = currentValidation(records);
    const info: ValidatorInfo = { nodeId, target: node.name, status: current ? (String(current.validationStatus) as ValidatorStatus) : 'none', checkedAt: now };
    if (current) {
      const times = parseValidatorRecordTimes(current);
      if (!times.ok) throw new ProbeError('bad_shape', `validator record of ${nodeId}: ${times.error}`);
      if (times.value.endTimestamp !== undefined) info.endTimestamp = times.value.endTimestamp;
      if (times.value.delegators !== undefined) info.delegators = times.value.delegators;
    }
    const completed = parseCompletedValidations(records);
    if (completed.length > 0) info.completed = completed;
    if (current?.validationStatus === 'active') {
      const health = parseValidatorRecordHealth(current);
      if (health.uptimePerformanceRatio !== undefined || health.reachabilityRatio !== undefined || Object.keys(health.benchedRequestsRatio).length > 0) info.health = health;
    }
    return info;
  }

  private async readTps(service: ServiceTarget, chain: ChainInfo): Promise<void> {
    const json = await this.getJson(service, `/v2/chains/${encodeURIComponent(chain.evmChainId)}/rollingWindowMetrics/avgTps`);
    const value = isObject(json.result) ? json.result.lastHour : undefined;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new ProbeError('bad_shape', 'result.lastHour must be a number of transactions per second');
    chain.avgTps = value;
  }
}

function applyChainInfo(chain: ChainInfo, item: Record<string, unknown>): void {
  if (typeof item.chainName === 'string') chain.name = item.chainName;
  if (typeof item.platformChainId === 'string') {
    chain.platformChainId = item.platformChainId;
    chain.check ??= item.platformChainId;
  }
  if (typeof item.status === 'string') chain.statusOk = item.status === 'OK';
}

/** The validation that describes the node now: active, else pending, else the one that ended last. */
export function currentValidation(records: Array<Record<string, unknown>>): Record<string, unknown> | undefined {
  const known = records.filter((r) => (VALIDATOR_STATUSES as readonly unknown[]).includes(r.validationStatus));
  for (const status of ['active', 'pending']) {
    const found = known.find((r) => r.validationStatus === status);
    if (found) return found;
  }
  return known.sort((a, b) => Number(b.endTimestamp ?? 0) - Number(a.endTimestamp ?? 0))[0];
}
