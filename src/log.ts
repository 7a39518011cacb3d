import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';
import { redact, redactDeep } from './util/text.js';

export type { Logger };

export interface LogOptions {
  level: string;
  format: 'json' | 'pretty';
  /** Defaults to stdout (fd 1); tests pass a stream to read what was logged. */
  destination?: NodeJS.WritableStream;
}

let logSecrets: readonly string[] = [];

/** The secrets taken out of everything logged from now on (the config's: set at start and on reload). */
export function redactLogsOf(secrets: readonly string[]): void {
  logSecrets = secrets;
}

export function createLogger(options: LogOptions): Logger {
  const base = {
    level: options.level,
    base: { app: 'avahealth' },
    formatters: { log: (object: Record<string, unknown>) => redactDeep(object, logSecrets) },
    hooks: {
      logMethod(this: Logger, args: Parameters<Logger['info']>, method: (...a: unknown[]) => void) {
        method.apply(this, args.map((a) => (typeof a === 'string' ? redact(a, logSecrets) : a)));
      },
    },
  };
  if (options.format === 'pretty') {
    // Loaded only when asked for: the JSON logs of a sidecar do not need it.
    const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
    return pino(base, pretty({ colorize: process.stdout.isTTY, translateTime: 'SYS:standard', singleLine: true, ignore: 'pid,hostname,app', destination: options.destination ?? 1, sync: true }));
  }
  return pino(base, options.destination ?? pino.destination({ dest: 1, sync: false }));
}
