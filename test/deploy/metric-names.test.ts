/**
 * The metric names that the shipped dashboards and Prometheus rules use are families avahealth
 * exports under the default `metrics:` (a knob may cut them, the defaults never do), and every
 * family avahealth exports is documented in docs/metrics.md.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { DiscoveryTally } from '../../src/discovery/index.js';
import { FAMILIES } from '../../src/metrics/collectors/index.js';
import { registerDiscoveryMetrics, registerStateWriteMetrics, shardGauge, webConfigReloadGauge } from '../../src/metrics/registry.js';
import { MetricsView } from '../../src/metrics/view.js';

const ROOT = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');

/** Every family a daemon may export: the pre-rendered ones and prom-client's, the optional parts (shards, discovery, web config) included. */
async function families(): Promise<string[]> {
  const registry = new MetricsView(parseConfig('nodes: []\n', '/tmp/avahealth.yaml'), { defaultMetrics: false }).families.registry;
  shardGauge(registry, { index: 0, count: 2 });
  registerDiscoveryMetrics(registry, new DiscoveryTally());
  registerStateWriteMetrics(registry);
  webConfigReloadGauge(registry);
  return [...FAMILIES.map((f) => f.name), ...(await registry.getMetricsAsJSON()).map((m) => m.name)];
}

/** The avahealth_ names an expression file uses (a histogram's or summary's suffixes are its family's). */
function namesIn(text: string): string[] {
  return [...new Set([...text.matchAll(/\bavahealth_[a-z0-9_]*[a-z0-9]/g)].map((m) => m[0]))];
}

describe('metric names', () => {
  const view = new MetricsView(parseConfig('nodes: []\n', '/tmp/avahealth.yaml'), { defaultMetrics: false });
  const files = [...readdirSync(new URL('dashboards/', ROOT)).filter((f) => f.endsWith('.json')).map((f) => `dashboards/${f}`), 'deploy/prometheus/avahealth.rules.yml'];

  it.each(files)('%s uses families exported under the default metrics: settings', async (file) => {
    const known = new Set(await families());
    const used = namesIn(read(file));
    expect(used.length).toBeGreaterThan(0);
    for (const name of used) {
      expect(known.has(name), `${file}: ${name} is no family avahealth exports`).toBe(true);
      expect(view.exports(name), `${file}: ${name} is not exported under the default metrics: settings`).toBe(true);
    }
  });

  it('documents every family in docs/metrics.md', async () => {
    const docs = read('docs/metrics.md');
    for (const name of await families()) if (name.startsWith('avahealth_')) expect(docs, name).toContain(`\`${name.replace(/^avahealth_/, '')}`);
  });

  it('a denied family is not exported, nor one outside the allow list; a pattern RE2 refuses is a config error', async () => {
    const yaml = 'metrics:\n  allow: ["avahealth_node_.*", "avahealth_probe_.*", "avahealth_config_.*", "avahealth_build_info"]\n  deny: ["avahealth_node_check_(duration|last_run)_.*", "avahealth_build_info"]\nnodes: []\n';
    const cut = new MetricsView(parseConfig(yaml, '/tmp/avahealth.yaml'), { defaultMetrics: false });
    expect(cut.exports('avahealth_node_check_passing')).toBe(true);
    expect(cut.exports('avahealth_node_check_duration_seconds')).toBe(false);
    expect(cut.exports('avahealth_node_check_last_run_timestamp_seconds')).toBe(false);
    expect(cut.exports('avahealth_validator_observed_uptime_ratio')).toBe(false);
    expect(cut.exports('avahealth_probe_success')).toBe(true);
    // prom-client's part too
    const text = await cut.render();
    expect(text).toContain('avahealth_config_last_reload_successful');
    expect(text).not.toContain('avahealth_build_info');
    expect(text).not.toContain('avahealth_alerts');
    expect(() => parseConfig('metrics:\n  deny: ["avahealth_(x"]\nnodes: []\n', '/tmp/avahealth.yaml')).toThrow(/invalid regular expression/);
  });
});
