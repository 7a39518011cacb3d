import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';

export type { Logger };

export interface LogOptions {
  level: string;
  format: 'json' | 'pretty';
  /** Defaults to stdout (fd 1); tests pass a stream to read what was logged. */
  destination?: NodeJS.WritableStream;
}

export function createLogger(options: LogOptions): Logger {
  const base = { level: options.level, base: { app: 'avahealth' } };
  if (options.format === 'pretty') {
    // Loaded only when asked for: the JSON logs of a sidecar do not need it.
    const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
    return pino(base, pretty({ colorize: process.stdout.isTTY, translateTime: 'SYS:standard', singleLine: true, ignore: 'pid,hostname,app', destination: options.destination ?? 1, sync: true }));
  }
  return pino(base, options.destination ?? pino.destination({ dest: 1, sync: false }));
}
