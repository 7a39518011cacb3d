import { describe, expect, it } from 'vitest';
import { diffConfigs, keepRestartOnly, restartRequired } from '../../src/config/diff.js';
import { parseConfig } from '../../src/config/load.js';

const base = `
listen: 127.0.0.1:9660
nodes:
  - {name: a, url: "http://127.0.0.1:9650"}
  - {name: b, url: "http://127.0.0.1:9651"}
alerts:
  receivers:
    - {name: hook, webhook: {url: "http://127.0.0.1:9999/hook"}}
`;
const parse = (yaml: string) => parseConfig(yaml, 'test.yaml');

describe('config diff', () => {
  it('an identical config changes nothing', () => {
    const diff = diffConfigs(parse(base), parse(base));
    expect(diff.none).toBe(true);
    expect(diff.targets).toEqual({ added: [], removed: [], changed: [] });
  });

  it('names targets added, removed and changed', () => {
    const next = parse(base.replace('{name: b, url: "http://127.0.0.1:9651"}', '{name: c, url: "http://127.0.0.1:9652"}').replace('{name: a, url: "http://127.0.0.1:9650"}', '{name: a, url: "http://127.0.0.1:9650", labels: {team: ops}}'));
    const diff = diffConfigs(parse(base), next);
    expect(diff.targets.added.map((t) => t.name)).toEqual(['c']);
    expect(diff.targets.removed).toEqual(['b']);
    expect(diff.targets.changed.map((t) => t.name)).toEqual(['a']);
    expect(diff.receivers).toBe(false);
    expect(diff.none).toBe(false);
  });

  it('tells receivers, alert settings, limits and sections apart', () => {
    const next = parse(`${base.replace('9999/hook', '9999/other')}  rules:\n    AvalancheNodeUnreachable: {for_polls: 5}\nlimits: {max_label_length: 64}\n`);
    const diff = diffConfigs(parse(base), next);
    expect(diff.receivers).toBe(true);
    expect(diff.alerts).toBe(true);
    expect(diff.limits).toBe(true);
    expect(diff.discovery).toBe('unchanged');
    expect(diff.chainData).toBe('unchanged');
  });

  it('reports a changed listen as restart-only and keeps the running value', () => {
    const running = parse(base);
    const loaded = parse(base.replace('127.0.0.1:9660', '127.0.0.1:9661'));
    expect(restartRequired(diffConfigs(running, loaded))).toEqual(['listen']);
    const kept = keepRestartOnly(running, loaded);
    expect(kept.listen).toEqual(running.listen);
    expect(restartRequired(diffConfigs(running, kept))).toEqual([]);
  });
});
