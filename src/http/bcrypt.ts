/**
 * bcrypt off the event loop: one worker thread (bcrypt-worker.ts, a module of its own in dist/)
 * runs the checks, one at a time, so a flood of logins cannot delay a scrape. The order is chosen
 * here, not by the worker: checks come in two lanes, and the first lane (clients without recent
 * failures: Prometheus, the kubelet, an operator) always goes before the second (clients that have
 * failed), so a flood of bad logins from elsewhere does not queue in front of a real user. The
 * worker starts on first use and does not keep the process alive.
 */
import { Worker } from 'node:worker_threads';

export type BcryptRequest = { id: number; op: 'hash'; password: string; cost: number } | { id: number; op: 'compare'; password: string; hash: string; pads: string[] };

export interface BcryptAnswer {
  id: number;
  /** The hash made, or whether the password matched. */
  result: string | boolean;
  /** The sum of 2^cost over the bcrypt runs done for this request. */
  work: number;
}

/** The cost factor of a bcrypt hash (`$2y$12$…` → 12). */
export function bcryptCost(hash: string): number {
  return Number(/^\$2[abxy]?\$(\d{2})\$/.exec(hash)?.[1] ?? 10);
}

/** Which queue a check waits in: 0 goes first. */
export type Lane = 0 | 1;

/** The worker's module, built beside this one; run from the sources (tests), the built one in dist/. */
const WORKER_URL = import.meta.url.endsWith('.ts') ? new URL('../../dist/http/bcrypt-worker.js', import.meta.url) : new URL('./bcrypt-worker.js', import.meta.url);

type Body = { op: 'hash'; password: string; cost: number } | { op: 'compare'; password: string; hash: string; pads: string[] };
interface Job {
  body: Body;
  resolve: (answer: BcryptAnswer) => void;
  reject: (err: unknown) => void;
}

export class BcryptWorker {
  private worker?: Worker;
  private nextId = 0;
  private readonly lanes: [Job[], Job[]] = [[], []];
  private running?: { id: number; job: Job };
  /** bcrypt work done by compares (2^cost summed over every hash checked): what logins have cost. */
  compareWork = 0;

  /** Checks waiting or running. */
  get queued(): number {
    return this.lanes[0].length + this.lanes[1].length + (this.running ? 1 : 0);
  }

  /** Whether `password` matches `hash`; on a mismatch, `pads` are checked too (the cost of a failure). */
  async compare(password: string, hash: string, pads: string[], lane: Lane): Promise<boolean> {
    const answer = await this.call({ op: 'compare', password, hash, pads }, lane);
    this.compareWork += answer.work;
    return answer.result === true;
  }

  async hash(password: string, cost: number): Promise<string> {
    return String((await this.call({ op: 'hash', password, cost }, 0)).result);
  }

  private call(body: Body, lane: Lane): Promise<BcryptAnswer> {
    return new Promise<BcryptAnswer>((resolve, reject) => {
      this.lanes[lane].push({ body, resolve, reject });
      this.next();
    });
  }

  /** Hands the worker the first job of the first lane that has one, when it is free. */
  private next(): void {
    if (this.running) return;
    const job = this.lanes[0].shift() ?? this.lanes[1].shift();
    if (!job) return;
    const id = this.nextId++;
    this.running = { id, job };
    this.start().postMessage({ id, ...job.body });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_URL);
    worker.unref();
    worker.on('message', (answer: BcryptAnswer) => {
      const running = this.running;
      if (running?.id !== answer.id) return;
      this.running = undefined;
      running.job.resolve(answer);
      this.next();
    });
    const fail = (err: unknown) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      const running = this.running;
      this.running = undefined;
      running?.job.reject(err);
      this.next(); // the others go to a new worker
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`bcrypt worker exited (${code})`)));
    this.worker = worker;
    return worker;
  }
}
