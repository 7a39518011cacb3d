import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { parseConfig } from '../../src/config/load.js';

const SUBNET = '2R7XPcHo4MrMDQ7qMAzXun4nrXdxHoqX7UB5QcWjcN4rt8uceG';
/** The network baseline's defaults: every 5 minutes, 3 observers per network. */
const BASELINE = { intervalMs: 300_000, observers: 3 };
const nodes = (yaml: string) => parseConfig(yaml, 'test.yaml').nodes.map((n) => [n.name, n.validator]);

describe('validator config', () => {
  it('is on by default, every 60s, with no subnets', () => {
    expect(nodes('nodes:\n  - {name: a, url: "http://127.0.0.1:9650"}\n')).toEqual([['a', { intervalMs: 60_000, subnets: [], network: BASELINE }]]);
  });

  it('false turns it off, on a node or under defaults; a node can turn it back on', () => {
    expect(nodes('nodes:\n  - {name: a, url: "http://a:9650", validator: false}\n')).toEqual([['a', undefined]]);
    expect(nodes(`defaults: {validator: false}\nnodes:\n  - {name: a, url: "http://a:9650"}\n  - {name: b, url: "http://b:9650", validator: {subnets: [${SUBNET}]}}\n`)).toEqual([
      ['a', undefined],
      ['b', { intervalMs: 60_000, subnets: [SUBNET], network: BASELINE }],
    ]);
  });

  it("a node's own keys refine those under defaults", () => {
    expect(nodes(`defaults: {validator: {interval: 2m, uptime_requirement: 0.85}}\nnodes:\n  - {name: a, url: "http://a:9650", validator: {subnets: [${SUBNET}, ${SUBNET}]}}\n  - {name: b, url: "http://b:9650", validator: {interval: 30s}}\n`)).toEqual([
      ['a', { intervalMs: 120_000, subnets: [SUBNET], uptimeRequirement: 0.85, network: BASELINE }],
      ['b', { intervalMs: 30_000, subnets: [], uptimeRequirement: 0.85, network: BASELINE }],
    ]);
  });

  it('network: on by default (5m, 3 observers); false turns it off on defaults or a node; a node refines the defaults key by key', () => {
    const network = (yaml: string) => parseConfig(yaml, 'test.yaml').nodes.map((n) => [n.name, n.validator?.network]);
    expect(network('defaults: {validator: {network: false}}\nnodes:\n  - {name: a, url: "http://a:9650"}\n  - {name: b, url: "http://b:9650", validator: {network: {observers: 1}}}\n')).toEqual([
      ['a', undefined],
      ['b', { intervalMs: 300_000, observers: 1 }],
    ]);
    expect(network('defaults: {validator: {network: {interval: 10m}}}\nnodes:\n  - {name: a, url: "http://a:9650", validator: {network: {observers: 5}}}\n  - {name: b, url: "http://b:9650", validator: {network: false}}\n  - {name: c, url: "http://c:9650", validator: false}\n')).toEqual([
      ['a', { intervalMs: 600_000, observers: 5 }],
      ['b', undefined],
      ['c', undefined],
    ]);
    expect(network('defaults: {validator: false}\nnodes:\n  - {name: a, url: "http://a:9650", validator: {interval: 30s}}\n')).toEqual([['a', BASELINE]]);
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
    expect(error('nodes:\n  - {name: a, url: "http://a:9650", validator: {network: {observers: 0}}}\n')).toMatch(/test\.yaml:2:/);
    expect(error('nodes:\n  - {name: a, url: "http://a:9650", validator: {network: {interval: 500ms}}}\n')).toMatch(/test\.yaml:2:/);
    expect(error('nodes:\n  - {name: a, url: "http://a:9650", validator: {network: true}}\n')).toMatch(/test\.yaml:2:/);
  });
});
