/**
 * The daemon's listening socket and who serves it. A small fleet is served on the main thread
 * (createHttpServer). A large one is served by a worker thread (front-worker.ts): the main thread's
 * heap is large there, and its garbage collections (tens of milliseconds, more at thousands of
 * nodes) would otherwise delay every answer, `/-/healthy` included, which is how a liveness probe
 * restarts a healthy monitor. The worker answers `/-/healthy` from the main thread's heartbeat and
 * forwards every other request to the routes here. Should the worker die, the main thread serves
 * the same address itself from then on, and says so in the log.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../log.js';
import type { FrontToMain, MainToFront, WorkerSettings } from './front-protocol.js';
import type { Gatekeeper } from './gate.js';
import { heartbeatBuffer, STALE_AFTER_MS, startHeartbeat } from './heartbeat.js';
import type { Reply, Route } from './route.js';
import { closeServer, createHttpServer, dispatch, failureReply, listen } from './server.js';
import type { WebSecurity } from './webconfig.js';

export interface Front {
  readonly address: AddressInfo;
  readonly servedBy: 'main' | 'worker';
  /** The heartbeat the worker reads to answer /-/healthy (none on the main thread). */
  readonly heartbeat?: SharedArrayBuffer;
  /** A reloaded web config (the gatekeeper shared with the caller is already updated). */
  applySecurity(security: WebSecurity): void;
  close(): Promise<void>;
}

export interface FrontOptions {
  host: string;
  port: number;
  routes: readonly Route[];
  gate?: Gatekeeper;
  log: Logger;
  /** Serve from a worker thread (large fleets) rather than the main thread. */
  inWorker: boolean;
  /**
   * The heartbeat the worker reads (heartbeat.ts), when the caller beats it itself; by default the
   * front makes one and beats it from this thread.
   */
  heartbeat?: SharedArrayBuffer;
}

/** Opens the address; rejects with the listen error (its `code` kept) when it cannot be had. */
export async function openFront(options: FrontOptions): Promise<Front> {
  return options.inWorker ? WorkerFront.open(options) : MainThreadFront.open(options);
}

const onHandlerError = (log: Logger) => (err: unknown) => log.error({ err }, 'HTTP handler failed');

class MainThreadFront implements Front {
  readonly servedBy = 'main';

  private constructor(
    private readonly server: Server,
    readonly address: AddressInfo,
  ) {}

  static async open(options: FrontOptions): Promise<MainThreadFront> {
    const server = createHttpServer(options.routes, onHandlerError(options.log), options.gate);
    return new MainThreadFront(server, await listen(server, options.host, options.port));
  }

  applySecurity(security: WebSecurity): void {
    if (security.tls) (this.server as unknown as { setSecureContext(o: object): void }).setSecureContext(security.tls);
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }
}

const COMPILED_WORKER = new URL('./front-worker.js', import.meta.url);
/** How long a closing worker may take to finish its in-flight requests before it is terminated. */
const CLOSE_TIMEOUT_MS = 10_000;

function spawnWorker(settings: WorkerSettings): Worker {
  if (existsSync(fileURLToPath(COMPILED_WORKER))) return new Worker(COMPILED_WORKER, { workerData: settings });
  // Running from the TypeScript sources (tests, tsx): the worker registers tsx's loader first.
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  const api = pathToFileURL(join(dirname(manifest), exports['./esm/api']!.import.default)).href;
  const source = new URL('./front-worker.ts', import.meta.url).href;
  return new Worker(`import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(source)}); });`, { eval: true, workerData: settings });
}

/** The reply's bytes in one fresh ArrayBuffer, moved to the worker rather than copied again. */
function wire(reply: Reply, id: number): { message: MainToFront; transfer: ArrayBuffer[] } {
  const { status, contentType, headers } = reply;
  const base = { type: 'reply' as const, id, status, contentType, ...(headers ? { headers } : {}) };
  if (typeof reply.body === 'string') return { message: { ...base, body: reply.body }, transfer: [] };
  const chunks = Array.isArray(reply.body) ? reply.body : [reply.body];
  const bytes = new Uint8Array(chunks.reduce((n, chunk) => n + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { message: { ...base, body: bytes }, transfer: [bytes.buffer] };
}

class WorkerFront implements Front {
  readonly servedBy = 'worker';
  private fallback?: MainThreadFront;
  /** The fallback being opened after the worker exited (close() waits for it, then closes it). */
  private opening?: Promise<unknown>;
  private closing = false;
  private exited = false;
  private readonly stopHeartbeat: () => void;

  private constructor(
    private readonly options: FrontOptions,
    private readonly worker: Worker,
    readonly address: AddressInfo,
    readonly heartbeat: SharedArrayBuffer,
    stopHeartbeat: () => void,
  ) {
    this.stopHeartbeat = stopHeartbeat;
    const { log } = options;
    worker.on('message', (message: FrontToMain) => this.onMessage(message));
    worker.on('error', (err) => log.error({ err }, 'HTTP front worker failed'));
    worker.on('exit', (code) => void this.onExit(code));
  }

  static async open(options: FrontOptions): Promise<WorkerFront> {
    const heartbeat = options.heartbeat ?? heartbeatBuffer();
    const stopHeartbeat = options.heartbeat ? () => {} : startHeartbeat(heartbeat);
    const worker = spawnWorker({ host: options.host, port: options.port, heartbeat, staleAfterMs: STALE_AFTER_MS, ...(options.gate ? { security: options.gate.current } : {}) });
    type Listener = Parameters<Worker['on']>[1];
    const listeners: Array<[string, Listener]> = [];
    const on = (event: string, listener: Listener) => {
      listeners.push([event, listener]);
      worker.on(event, listener);
    };
    try {
      const address = await new Promise<AddressInfo>((resolve, reject) => {
        on('message', (message: FrontToMain) => {
          if (message.type === 'listening') resolve(message.address);
          if (message.type === 'listen-failed') reject(Object.assign(new Error(message.message), message.code ? { code: message.code } : {}));
        });
        on('error', reject);
        on('exit', (code: number) => reject(new Error(`the HTTP front worker exited (${code}) before listening`)));
      });
      return new WorkerFront(options, worker, address, heartbeat, stopHeartbeat);
    } catch (err) {
      stopHeartbeat();
      await worker.terminate();
      throw err;
    } finally {
      for (const [event, listener] of listeners) worker.off(event, listener);
    }
  }

  private onMessage(message: FrontToMain): void {
    const { log, routes } = this.options;
    if (message.type === 'error') return void log.error({ err: { message: message.message, stack: message.stack } }, 'HTTP handler failed');
    if (message.type !== 'request') return;
    const { id, head, tooLarge } = message;
    const body = Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength);
    dispatch(routes, head, () => Promise.resolve({ body, tooLarge }))
      .catch((err: unknown) => failureReply(err, onHandlerError(log)))
      .then((reply) => {
        const { message: answer, transfer } = wire(reply, id);
        this.worker.postMessage(answer, transfer);
      })
      .catch((err: unknown) => log.error({ err }, 'HTTP reply could not be handed to the front worker'));
  }

  private async onExit(code: number): Promise<void> {
    this.exited = true;
    if (this.closing) return;
    const { log, host } = this.options;
    this.stopHeartbeat();
    log.error({ code }, 'HTTP front worker exited; the main thread serves HTTP from now on');
    this.opening = MainThreadFront.open({ ...this.options, port: this.address.port, host }).then(
      (fallback) => (this.fallback = fallback),
      (err: unknown) => void log.error({ err, address: `${host}:${this.address.port}` }, 'cannot serve HTTP after the front worker exited'),
    );
    await this.opening;
  }

  applySecurity(security: WebSecurity): void {
    if (this.fallback) return this.fallback.applySecurity(security);
    const message: MainToFront = { type: 'security', security };
    this.worker.postMessage(message);
  }

  async close(): Promise<void> {
    this.closing = true;
    this.stopHeartbeat();
    await this.opening;
    if (this.fallback) return this.fallback.close();
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    const message: MainToFront = { type: 'close' };
    this.worker.postMessage(message);
    const timer = setTimeout(() => void this.worker.terminate(), CLOSE_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }
}
