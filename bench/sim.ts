/**
 * `avahealth simulate` for the benchmarks, counting the requests it answers (the polls the daemon
 * made): started with an IPC channel, it answers each message with `{ requests }`.
 *   node --import tsx bench/sim.ts NODES PORT PERIOD_MS [OTHER_VALIDATORS] [FIRST]
 * OTHER_VALIDATORS: validators besides the fleet in every getCurrentValidators answer (default 40);
 * FIRST: the number of the first node (node-FIRST … node-(FIRST+NODES-1); default 1), so that several
 * simulators can serve one large fleet.
 */
import type { Server } from 'node:http';
import { uniformFleet } from '../src/sim/fleet.js';
import { SimServer } from '../src/sim/server.js';

const [nodes = '1000', port = '0', periodMs = '30000', others = '40', first = '1'] = process.argv.slice(2);
const sim = new SimServer(uniformFleet(Number(nodes), 'healthy').map((n, i) => ({ ...n, name: `node-${Number(first) + i}`, periodMs: Number(periodMs) })), { otherValidators: Number(others) });
let requests = 0;
(sim as unknown as { server: Server }).server.on('request', () => requests++);
await sim.listen(Number(port));
process.on('message', () => process.send!({ requests }));
process.on('disconnect', () => process.exit(0));
process.send!({ ready: true });
