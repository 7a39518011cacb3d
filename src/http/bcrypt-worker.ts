/**
 * The bcrypt worker thread's own module (started by bcrypt.ts from dist/http/bcrypt-worker.js):
 * bcryptjs is pure JS and, even "async", blocks its thread for up to a second at cost 12, so the
 * checks run here, never on the event loop that serves scrapes and probes.
 *
 * One message at a time: `hash` makes a hash of the given cost; `compare` checks a password against
 * a hash and, when it does not match, against each `pads` hash too (dummy hashes that bring a
 * failed check's cost up to the highest configured one: gate.ts). Each answer says how much bcrypt
 * work it did, as the sum of 2^cost over the hashes it ran.
 */
import { parentPort } from 'node:worker_threads';
import bcrypt from 'bcryptjs';
import { bcryptCost, type BcryptAnswer, type BcryptRequest } from './bcrypt.js';

function answer(request: BcryptRequest): BcryptAnswer {
  if (request.op === 'hash') {
    try {
      return { id: request.id, result: bcrypt.hashSync(request.password, request.cost), work: 2 ** request.cost };
    } catch {
      return { id: request.id, result: '', work: 0 };
    }
  }
  const compare = (hash: string) => {
    try {
      return bcrypt.compareSync(request.password, hash);
    } catch {
      return false;
    }
  };
  let work = 2 ** bcryptCost(request.hash);
  const ok = compare(request.hash);
  if (!ok) {
    for (const pad of request.pads) {
      compare(pad);
      work += 2 ** bcryptCost(pad);
    }
  }
  return { id: request.id, result: ok, work };
}

parentPort?.on('message', (request: BcryptRequest) => parentPort!.postMessage(answer(request)));
