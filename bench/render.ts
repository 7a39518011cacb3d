/** In-process cost of one /metrics render with N nodes (each with the unhealthy mainnet body). */
import { readFileSync } from 'node:fs';
import { parseConfig } from '../src/config/load.js';
import { MetricsView } from '../src/metrics/view.js';
import { parseHealthReport } from '../src/parse/avalanchego.js';
import { Store } from '../src/store.js';

const nodes = Number(process.argv[2] ?? 1000);
const body = JSON.parse(readFileSync(new URL('../test/fixtures/shared/avalanchego/health-unhealthy-bootstrapping.json', import.meta.url), 'utf8'));
const report = (parseHealthReport(body) as { value: import('../src/model/observation.js').HealthReport }).value;
const config = parseConfig(`nodes:\n${Array.from({ length: nodes }, (_, i) => `  - {name: n${i}, url: "http://127.0.0.1:9/n${i}", labels: {env: mainnet}}`).join('\n')}\n`, '/tmp/render.yaml');
const store = new Store();
const view = new MetricsView(config, { defaultMetrics: true });
view.attach(store);
const observe = (i: number) =>
  store.record({
    target: `n${i}`,
    kind: 'node',
    at: Date.now() / 1000,
    nodeId: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
    endpoints: (['health', 'readiness', 'liveness'] as const).map((endpoint) => ({ endpoint, view: 'all', ok: true, httpStatus: 503, durationSeconds: 0.004, at: Date.now() / 1000, report })),
  });
for (let i = 0; i < nodes; i++) observe(i);
const times: number[] = [];
let size = 0;
for (let r = 0; r < 30; r++) {
  observe(r % nodes); // one poll landed: the cache is stale
  const t = performance.now();
  size = (await view.render()).length;
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
const t = performance.now();
for (let i = 0; i < 1000; i++) observe(i % nodes);
const perUpdate = (performance.now() - t) / 1000;
process.stdout.write(JSON.stringify({ nodes, sizeMiB: Math.round((size / 1048576) * 10) / 10, renderMsP50: times[15]!.toFixed(1), renderMsMax: times[29]!.toFixed(1), updateMicroseconds: Math.round(perUpdate * 1000) }) + '\n');
