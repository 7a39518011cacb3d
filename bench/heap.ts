/**
 * Where the memory of a large fleet goes, in process: N nodes × 3 endpoints with distinct parsed
 * reports, measured after a full GC at each stage (run with --expose-gc):
 *   node --expose-gc --import tsx bench/heap.ts 1000
 * Stages: reports parsed, store + metrics view, alert rules evaluated, a plain and a gzip scrape.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AlertEngine } from '../src/alerts/engine.js';
import { createLogger } from '../src/log.js';
import { parseConfig } from '../src/config/load.js';
import { bodyBytes } from '../src/metrics/endpoint.js';
import { MetricsView } from '../src/metrics/view.js';
import { parseHealthReport } from '../src/parse/avalanchego.js';
import type { HealthReport } from '../src/model/observation.js';
import { Store } from '../src/store.js';

const nodes = Number(process.argv[2] ?? 1000);
const text = readFileSync(new URL('../test/fixtures/shared/avalanchego/health-unhealthy-bootstrapping.json', import.meta.url), 'utf8');
const gc = (globalThis as { gc?: () => void }).gc!;
const mem = () => {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed / 1048576, external: (m.external + m.arrayBuffers * 0) / 1048576, rss: m.rss / 1048576 };
};
const stages: Array<[string, ReturnType<typeof mem>]> = [['start', mem()]];
// the alert engine keeps its state here; removed at the end
const stateDir = mkdtempSync(join(tmpdir(), 'heap-'));
const config = parseConfig(`state_dir: ${stateDir}\nnodes:\n${Array.from({ length: nodes }, (_, i) => `  - {name: n${i}, url: "http://127.0.0.1:9/n${i}", labels: {env: mainnet}}`).join('\n')}\n`, '/tmp/heap.yaml');
const reports: HealthReport[][] = Array.from({ length: nodes }, () => (['health', 'readiness', 'liveness'] as const).map(() => (parseHealthReport(JSON.parse(text)) as { value: HealthReport }).value));
stages.push(['reports parsed', mem()]);
const store = new Store();
const view = new MetricsView(config, { defaultMetrics: true });
view.attach(store);
const observe = (i: number) =>
  store.record({
    target: `n${i}`,
    kind: 'node',
    at: Date.now() / 1000,
    nodeId: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
    endpoints: (['health', 'readiness', 'liveness'] as const).map((endpoint, k) => ({ endpoint, view: 'all', ok: true, httpStatus: 503, durationSeconds: 0.004, at: Date.now() / 1000, report: reports[i]![k]! })),
  });
for (let i = 0; i < nodes; i++) observe(i);
stages.push(['store + view updated', mem()]);
const engine = new AlertEngine(config, { log: createLogger({ level: 'silent', format: 'json' })});
engine.attach(store);
stages.push(['alert rules evaluated', mem()]);
const plain = await bodyBytes((await view.scrape({})).body);
stages.push(['text scrape', mem()]);
const zipped = await bodyBytes((await view.scrape({ acceptEncoding: 'gzip', accept: 'application/openmetrics-text' })).body);
stages.push(['gzip scrape', mem()]);
const size = (b: Buffer) => b.length / 1048576;
let prev = stages[0]![1];
for (const [name, m] of stages) {
  process.stdout.write(`${name.padEnd(22)} heap ${m.heapUsed.toFixed(1).padStart(6)} (+${(m.heapUsed - prev.heapUsed).toFixed(1)}) external ${m.external.toFixed(1).padStart(6)} (+${(m.external - prev.external).toFixed(1)}) rss ${m.rss.toFixed(0)}\n`);
  prev = m;
}
process.stdout.write(`exposition ${size(plain).toFixed(1)} MiB, gzip ${size(zipped).toFixed(2)} MiB\n`);
await engine.flush();
rmSync(stateDir, { recursive: true, force: true });
