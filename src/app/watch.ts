/** Watched files (the config, the web config and its certificates) and the web config's reload. */
import { ConfigError } from '../config/errors.js';
import type { Gauge } from 'prom-client';
import type { Gatekeeper } from '../http/gate.js';
import { applyTls } from '../http/server.js';
import { fingerprintFiles, loadWebConfig, reloadProblem } from '../http/webconfig.js';
import type { Server } from 'node:http';
import type { Logger } from '../log.js';

/** How often watched files are checked for changes. */
const WATCH_INTERVAL_MS = 2000;

/** Polls the modification times of files; calls back when they change. */
export class FileWatchers {
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(private readonly everyMs = WATCH_INTERVAL_MS) {}

  watch(files: () => string[], onChange: () => void): void {
    let last = fingerprintFiles(files());
    const timer = setInterval(() => {
      const now = fingerprintFiles(files());
      if (now === last) return;
      last = now;
      onChange();
    }, this.everyMs);
    timer.unref();
    this.timers.push(timer);
  }

  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
  }
}

/**
 * Re-reads the web config; one that does not load, is empty, or would weaken protection (drop
 * basic auth or client certificates, switch HTTP/HTTPS) is refused and the current one kept.
 * `applied` reports the outcome (avahealth_web_config_last_reload_successful).
 */
export function reloadWebConfig(file: string, gate: Gatekeeper, server: Server, log: Logger, applied?: Gauge): void {
  try {
    const next = loadWebConfig(file);
    const problem = reloadProblem(gate.current, next);
    if (problem) {
      applied?.set(0);
      log.error({ error: problem }, 'web config refused; keeping the current one');
      return;
    }
    gate.update(next);
    applyTls(server, next);
    applied?.set(1);
    log.info({ tls: Boolean(next.tls), users: next.users.size }, 'web config reloaded');
  } catch (err) {
    applied?.set(0);
    log.error({ error: err instanceof ConfigError ? err.message : String(err) }, 'web config reload failed; keeping the current one');
  }
}
