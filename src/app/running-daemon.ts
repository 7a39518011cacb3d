/**
 * The daemon running beside `avahealth check` on the same state_dir (its lock says so, and where
 * its API answers): its verdicts are the on-call truth, since its open incidents are what
 * receivers were told. Asked over its API (`/api/v1/status`, or `/api/v1/targets/NAME`); when the
 * API cannot be asked (basic auth, TLS with a certificate for another name, an older daemon that
 * records no address), its open incidents are read from `state_dir/alerts.json` instead. Nothing
 * here writes, and nothing the daemon says is used before its shape is checked.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { alertStateFileSchema } from '../alerts/persisted.js';
import type { AlertState } from '../alerts/types.js';
import { stateDirOwner } from '../state/lock.js';
import { statePath } from '../state/map.js';
import type { TargetStatus } from '../status/status.js';
import { HttpClient } from '../transport/client.js';
import { VERSION } from '../version.js';

/** What the daemon's API says of a target: its verdict, as the page and /api/v1 show it (other fields passed through). */
const daemonTarget = z.looseObject({
  name: z.string(),
  kind: z.enum(['node', 'service']),
  state: z.enum(['healthy', 'warning', 'unhealthy', 'unreachable', 'pending']),
  summary: z.string(),
  failingChecks: z.array(z.string()),
  heights: z.record(z.string(), z.number()),
});
const daemonStatus = z.looseObject({ targets: z.array(daemonTarget) });

/** A status JSON this large is not read (a fleet's status with its histories is a few MB). */
const MAX_STATUS_BYTES = 256 * 1024 * 1024;
const TIMEOUT_MS = 10_000;

export interface DaemonVerdicts {
  pid: number;
  url?: string;
  /** Its verdict on each target it watches (another shard's targets are not among them), when its API answered. */
  targets?: TargetStatus[];
  /** Why its API could not be asked; its open incidents then come from state_dir. */
  error?: string;
  /** Its incidents, from state_dir/alerts.json (when its API could not be asked). */
  incidents?: AlertState[];
}

/** The verdicts of a daemon holding `stateDir`, or undefined when none runs. `target`: only that one's. */
export async function daemonVerdicts(stateDir: string, target: string | undefined): Promise<DaemonVerdicts | undefined> {
  const owner = stateDirOwner(stateDir);
  if (!owner) return undefined;
  const found: DaemonVerdicts = { pid: owner.pid, ...(owner.url ? { url: owner.url } : {}) };
  try {
    if (!owner.url) throw new Error('its lock records no API address yet (it is starting, or an older avahealth)');
    found.targets = await askApi(owner.url, target);
    return found;
  } catch (err) {
    return { ...found, error: (err as Error).message, incidents: savedIncidents(stateDir) };
  }
}

async function askApi(url: string, target: string | undefined): Promise<TargetStatus[]> {
  const http = new HttpClient({ maxResponseBytes: MAX_STATUS_BYTES, userAgent: `avahealth-check/${VERSION}` });
  try {
    const path = target === undefined ? '/api/v1/status' : `/api/v1/targets/${encodeURIComponent(target)}`;
    const response = await http.request({ url: `${url}${path}`, timeoutMs: TIMEOUT_MS });
    // A target the daemon does not watch (another shard's): this check's own round says it.
    if (target !== undefined && response.status === 404) return [];
    if (response.status !== 200) throw new Error(`GET ${path} answered HTTP ${response.status}`);
    const body: unknown = JSON.parse(response.body);
    if (target === undefined) return daemonStatus.parse(body).targets as unknown as TargetStatus[];
    const { alerts: _alerts, lastResponse: _raw, ...shown } = daemonTarget.parse(body);
    return [shown as unknown as TargetStatus];
  } finally {
    await http.close();
  }
}

/** The daemon's incidents as it last saved them (at most a second behind); none when the file cannot be read. */
function savedIncidents(stateDir: string): AlertState[] {
  try {
    const parsed = alertStateFileSchema.safeParse(JSON.parse(readFileSync(statePath.alerts(stateDir), 'utf8')));
    return parsed.success ? parsed.data.alerts : [];
  } catch {
    return [];
  }
}
