/**
 * bcrypt off the event loop: one worker thread runs the checks (bcryptjs is pure JS and, even
 * "async", blocks the loop for up to 100 ms at a time), so a flood of logins cannot delay a scrape.
 * The worker starts on first use and does not keep the process alive.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const bcrypt = require(workerData.bcrypt);
parentPort.on('message', ({ id, op, password, hash, cost }) => {
  let result;
  try {
    result = op === 'hash' ? bcrypt.hashSync(password, cost) : bcrypt.compareSync(password, hash);
  } catch {
    result = op === 'hash' ? '' : false;
  }
  parentPort.postMessage({ id, result });
});
`;

type Pending = { resolve: (value: never) => void; reject: (err: unknown) => void };

export class BcryptWorker {
  private worker?: Worker;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();

  /** Checks waiting or running. */
  get queued(): number {
    return this.pending.size;
  }

  compare(password: string, hash: string): Promise<boolean> {
    return this.call({ op: 'compare', password, hash });
  }

  hash(password: string, cost: number): Promise<string> {
    return this.call({ op: 'hash', password, cost });
  }

  private call<T>(message: Record<string, unknown>): Promise<T> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: never) => void, reject });
      worker.postMessage({ id, ...message });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const bcrypt = createRequire(import.meta.url).resolve('bcryptjs');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bcrypt } });
    worker.unref();
    worker.on('message', ({ id, result }: { id: number; result: never }) => {
      this.pending.get(id)?.resolve(result);
      this.pending.delete(id);
    });
    const fail = (err: unknown) => {
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      this.worker = undefined;
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`bcrypt worker exited (${code})`)));
    this.worker = worker;
    return worker;
  }
}
