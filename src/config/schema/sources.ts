/** `chain_data:` and `discovery:`: where nodes and network-wide facts come from besides `nodes[]`. */
import { z } from 'zod';
import { duration, labels } from '../primitives.js';
import { NETWORKS, type Network } from './nodes.js';

export const DEFAULT_NETWORK: Network = 'mainnet';
export const C_CHAIN: Record<Network, string> = { mainnet: '43114', fuji: '43113' };

export const chainDataSchema = z.strictObject({
  interval: duration({ ms: 10_000, text: '10s' }).prefault('60s').describe('How often chain data is refreshed.'),
  network: z.enum(NETWORKS).prefault(DEFAULT_NETWORK).describe('Network of the nodes, unless a node sets its own.'),
  data_api: z.string().optional().describe('Name of the data-api service to use (default: the first one).'),
  metrics_api: z.string().optional().describe('Name of the metrics-api service to use (default: the first one).'),
  evm_chains: z
    .array(z.string().regex(/^\d+$/, 'must be an EVM chain ID such as "43114"'))
    .optional()
    .describe('EVM chain IDs whose latest block, status and TPS are followed (default: the C-Chain of the network).'),
  validators: z.boolean().prefault(true).describe('Follow the validator status of every node whose NodeID is known.'),
  validator_interval: duration({ ms: 10_000, text: '10s' }).prefault('10m').describe('How often a node\'s validator record is re-read.'),
  tps: z.boolean().optional().describe('Read average TPS from the Metrics API (default true when one is configured).'),
});

/** Chain data with the services it reads resolved (the first of each kind unless named). */
export function resolveChainData(c: z.output<typeof chainDataSchema>, services: ReadonlyArray<{ name: string; service: string }>) {
  const dataApi = c.data_api ?? services.find((s) => s.service === 'data-api')?.name;
  const metricsApi = c.metrics_api ?? services.find((s) => s.service === 'metrics-api')?.name;
  return {
    intervalMs: c.interval,
    network: c.network,
    ...(dataApi ? { dataApi } : {}),
    ...(metricsApi ? { metricsApi } : {}),
    evmChains: c.evm_chains ?? [C_CHAIN[c.network]],
    validators: c.validators,
    validatorIntervalMs: c.validator_interval,
    tps: c.tps ?? metricsApi !== undefined,
  };
}
export type ChainDataConfig = ReturnType<typeof resolveChainData>;

const scheme = z.enum(['http', 'https']).prefault('http');
const refreshInterval = duration({ ms: 1000, text: '1s' }).prefault('30s');

export const discoverySchema = z
  .strictObject({
    file_sd: z
      .array(
        z.strictObject({
          files: z.array(z.string()).min(1).describe('Prometheus file_sd files (JSON or YAML; globs like targets/*.json); re-read when they change.'),
          refresh_interval: refreshInterval.describe('How often the files are checked.'),
          scheme: scheme.describe('For host:port targets.'),
          labels: labels.prefault({}),
        }),
      )
      .prefault([]),
    dns: z
      .array(
        z.strictObject({
          names: z.array(z.string().min(1)).min(1).describe('DNS names to resolve (a headless Kubernetes Service is the common case).'),
          type: z.enum(['A', 'AAAA', 'SRV']).optional().describe('Default SRV when no port is given, else A.'),
          port: z.number().int().min(1).max(65535).optional().describe('Port for A/AAAA answers (default 9650).'),
          refresh_interval: refreshInterval.describe('How often names are re-resolved.'),
          scheme,
          servers: z.array(z.string()).prefault([]).describe('DNS servers to ask (IP or IP:port) instead of the system resolver.'),
          labels: labels.prefault({}),
        }),
      )
      .prefault([]),
    max_targets_per_source: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .prefault(1000)
      .describe('At most this many targets from one file_sd entry or DNS entry (the first ones, in the order found); the rest are left out, logged and counted.'),
    send_default_credentials: z
      .boolean()
      .prefault(true)
      .describe('Send the credentials under defaults: (bearer_token, basic_auth, and every header but the harmless ones such as Accept and User-Agent) to discovered nodes too; false sends them none.'),
  })
  .transform((d) => ({
    sendDefaultCredentials: d.send_default_credentials,
    maxTargetsPerSource: d.max_targets_per_source,
    fileSd: d.file_sd.map((f) => ({ files: f.files, refreshMs: f.refresh_interval, scheme: f.scheme, labels: f.labels })),
    dns: d.dns.map((n) => ({
      names: n.names,
      type: n.type ?? (n.port === undefined ? 'SRV' : 'A'),
      port: n.port ?? 9650,
      refreshMs: n.refresh_interval,
      scheme: n.scheme,
      labels: n.labels,
      servers: n.servers,
    })),
  }));
