/** Watched files (the config, the web config and its certificates) and the web config's reload. */
import type { Server } from 'node:http';
import { ConfigError } from '../config/errors.js';
import { fingerprintFiles, loadWebConfig, type Gatekeeper } from '../http/webconfig.js';
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

/** Re-reads the web config; one that does not load, or switches between HTTP and HTTPS, is refused. */
export function reloadWebConfig(file: string, gate: Gatekeeper, server: Server, log: Logger): void {
  try {
    const next = loadWebConfig(file);
    if (Boolean(next.tls) !== Boolean(gate.current.tls)) {
      log.error('web config switches between HTTP and HTTPS: restart avahealth to apply it; keeping the current one');
      return;
    }
    if (next.tls) (server as unknown as { setSecureContext(o: object): void }).setSecureContext(next.tls);
    gate.update(next);
    log.info({ tls: Boolean(next.tls), users: next.users.size }, 'web config reloaded');
  } catch (err) {
    log.error({ error: err instanceof ConfigError ? err.message : String(err) }, 'web config reload failed; keeping the current one');
  }
}
