import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { parseConfig } from '../../src/config/load.js';

const SUBNET = '2R7XPcHo4MrMDQ7qMAzXun4nrXdxHoqX7UB5QcWjcN4rt8uceG';
const nodes = (yaml: string) => parseConfig(yaml, 'test.yaml').nodes.map((n) => [n.name, n.validator]);

describe('validator config', () => {
  it('is on by default, every 60s, with no subnets', () => {
    expect(nodes('nodes:\n  - {name: a, url: "http://127.0.0.1:9650"}\n')).toEqual([['a', { intervalMs: 60_000, subnets: [] }]]);
  });

  it('false turns it off, on a node or under defaults; a node can turn it back on', () => {
    expect(nodes('nodes:\n  - {name: a, url: "http://a:9650", validator: false}\n')).toEqual([['a', undefined]]);
    expect(nodes(`defaults: {validator: false}\nnodes:\n  - {name: a, url: "http://a:9650"}\n  - {name: b, url: "http://b:9650", validator: {subnets: [${SUBNET}]}}\n`)).toEqual([
      ['a', undefined],
      ['b', { intervalMs: 60_000, subnets: [SUBNET] }],
    ]);
  });

  it("a node's own keys refine those under defaults", () => {
    expect(nodes(`defaults: {validator: {interval: 2m, uptime_requirement: 0.85}}\nnodes:\n  - {name: a, url: "http://a:9650", validator: {subnets: [${SUBNET}, ${SUBNET}]}}\n  - {name: b, url: "http://b:9650", validator: {interval: 30s}}\n`)).toEqual([
      ['a', { intervalMs: 120_000, subnets: [SUBNET], uptimeRequirement: 0.85 }],
      ['b', { intervalMs: 30_000, subnets: [], uptimeRequirement: 0.85 }],
    ]);
  });

  it('rejects what it cannot use, at its line', () => {
    const error = (yaml: string) => {
      try {
        parseConfig(yaml, 'test.yaml');
      } catch (err) {
        return err instanceof ConfigError ? err.message : String(err);
      }
      return 'no error';
    };
    expect(error('nodes:\n  - {name: a, url: "http://a:9650", validator: {subnets: ["not a subnet"]}}\n')).toMatch(/test\.yaml:2:\d+: .*subnet ID/);
    expect(error('nodes:\n  - {name: a, url: "http://a:9650", validator: {uptime_requirement: 1.5}}\n')).toMatch(/test\.yaml:2:/);
    expect(error('nodes:\n  - {name: a, url: "http://a:9650", validator: {every: 5s}}\n')).toMatch(/test\.yaml:2:/);
    expect(error('nodes:\n  - {name: a, url: "http://a:9650", validator: true}\n')).toMatch(/test\.yaml:2:/);
  });
});
