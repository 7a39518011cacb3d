/**
 * Writes every generated, checked-in file: the Prometheus rules (plain and as a PrometheusRule),
 * the Grafana dashboards, and the config JSON Schema. `npm run generate`; a test fails when the
 * checked-in files differ from what this produces.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generatedFiles } from './generated.js';

const root = fileURLToPath(new URL('../', import.meta.url));
for (const [path, content] of Object.entries(generatedFiles())) {
  writeFileSync(`${root}${path}`, content);
  process.stdout.write(`wrote ${path}\n`);
}
