/**
 * Whether anything pages (src/alerts/paging.ts), worked out from a config alone: the receivers that
 * take some target's critical alerts, the targets none takes, and the words said at start, on the
 * page and in /api/v1/status (test/integration/paging.test.ts checks those surfaces on a daemon).
 */
import { describe, expect, it } from 'vitest';
import { pagingCheck } from '../../src/alerts/paging.js';
import { parseConfig } from '../../src/config/load.js';

const FIX = 'add a receiver under alerts.receivers, or set alerts.paging: prometheus when the shipped Prometheus rules page through Alertmanager';

const configOf = (yaml: string) => parseConfig(`state_dir: /nonexistent\n${yaml}`, 'config.yaml', {});
const node = (name: string, env: string) => `  - {name: ${name}, url: "http://127.0.0.1:1", labels: {env: ${env}}}\n`;

describe('whether anything pages', () => {
  it('no receiver at all: nothing pages, and every target is unrouted', () => {
    const check = pagingCheck(configOf(`nodes:\n${node('validator-1', 'mainnet')}`));
    expect(check).toEqual({ by: 'receivers', receivers: [], unrouted: ['validator-1'], unroutedCount: 1, problem: `nothing pages: no receiver is configured, so no one is told of a critical alert; ${FIX}` });
  });

  it('alerts.paging: prometheus is no problem, though the receivers route nothing', () => {
    const check = pagingCheck(configOf(`nodes:\n${node('validator-1', 'mainnet')}alerts:\n  paging: prometheus\n`));
    expect(check).toEqual({ by: 'prometheus', receivers: [], unrouted: ['validator-1'], unroutedCount: 1 });
  });

  it('names the targets whose critical alerts no route takes, and only the receivers that take some', () => {
    const config = configOf(`nodes:\n${node('validator-1', 'mainnet')}${node('fuji-1', 'fuji')}alerts:
  receivers:
    - {name: chat, webhook: {url: "http://127.0.0.1:1/chat"}, matchers: {env: mainnet, severity: warning}}
    - {name: pager, webhook: {url: "http://127.0.0.1:1/hook"}, matchers: {env: mainnet}, min_severity: critical}
    - {name: archive, webhook: {url: "http://127.0.0.1:1/all"}, matchers: {env: mainnet}}
`);
    expect(pagingCheck(config)).toEqual({
      by: 'receivers',
      receivers: ['pager', 'archive'],
      unrouted: ['fuji-1'],
      unroutedCount: 1,
      problem: `no receiver takes the critical alerts of fuji-1 (every route's matchers leave them out): no one is told when they fail; ${FIX}`,
    });
  });

  it('every target routed: no problem', () => {
    const config = configOf(`nodes:\n${node('validator-1', 'mainnet')}${node('fuji-1', 'fuji')}alerts:\n  receivers:\n    - {name: pager, webhook: {url: "http://127.0.0.1:1/hook"}, matchers: {env: "~mainnet|fuji"}}\n`);
    expect(pagingCheck(config)).toEqual({ by: 'receivers', receivers: ['pager'], unrouted: [], unroutedCount: 0 });
  });

  it('lists ten unrouted targets, then says how many more', () => {
    const nodes = Array.from({ length: 12 }, (_, i) => node(`fuji-${i + 1}`, 'fuji')).join('');
    const check = pagingCheck(configOf(`nodes:\n${node('validator-1', 'mainnet')}${nodes}alerts:\n  receivers:\n    - {name: pager, webhook: {url: "http://127.0.0.1:1/hook"}, matchers: {env: mainnet}}\n`));
    const listed = Array.from({ length: 10 }, (_, i) => `fuji-${i + 1}`);
    expect(check.unrouted).toEqual(listed);
    expect(check.unroutedCount).toBe(12);
    expect(check.problem).toBe(`no receiver takes the critical alerts of ${listed.join(', ')} and 2 more (every route's matchers leave them out): no one is told when they fail; ${FIX}`);
  });

  it('exactly ten unrouted: all named, no "more"', () => {
    const nodes = Array.from({ length: 10 }, (_, i) => node(`fuji-${i + 1}`, 'fuji')).join('');
    const check = pagingCheck(configOf(`nodes:\n${nodes}alerts:\n  receivers:\n    - {name: pager, webhook: {url: "http://127.0.0.1:1/hook"}, matchers: {env: mainnet}}\n`));
    expect(check.unroutedCount).toBe(10);
    expect(check.problem).toContain('fuji-9, fuji-10 (every route');
  });

  it("a target is matched on its kind's rules: a route for the services' alerts leaves the nodes out, and the reverse", () => {
    const config = configOf(`nodes:\n${node('validator-1', 'mainnet')}services:\n  - {name: data-api, kind: data-api, url: "http://127.0.0.1:2"}\nalerts:
  receivers:
    - {name: services, webhook: {url: "http://127.0.0.1:1/s"}, matchers: {alertname: "~AvalancheService.*"}}
    - {name: nodes, webhook: {url: "http://127.0.0.1:1/n"}, matchers: {alertname: AvalancheNodeUnreachable}}
`);
    expect(pagingCheck(config)).toMatchObject({ receivers: ['services', 'nodes'], unrouted: [], unroutedCount: 0 });
    const servicesOnly = configOf(`nodes:\n${node('validator-1', 'mainnet')}services:\n  - {name: data-api, kind: data-api, url: "http://127.0.0.1:2"}\nalerts:\n  receivers:\n    - {name: services, webhook: {url: "http://127.0.0.1:1/s"}, matchers: {alertname: "~AvalancheService.*"}}\n`);
    expect(pagingCheck(servicesOnly)).toMatchObject({ receivers: ['services'], unrouted: ['validator-1'] });
    const nodesOnly = configOf(`nodes:\n${node('validator-1', 'mainnet')}services:\n  - {name: data-api, kind: data-api, url: "http://127.0.0.1:2"}\nalerts:\n  receivers:\n    - {name: nodes, webhook: {url: "http://127.0.0.1:1/n"}, matchers: {alertname: AvalancheNodeUnreachable}}\n`);
    expect(pagingCheck(nodesOnly)).toMatchObject({ receivers: ['nodes'], unrouted: ['data-api'] });
  });

  it("a matcher on a label only the alert sets (check) is taken to match nothing; a target's own labels and the target name do match", () => {
    const byCheck = configOf(`nodes:\n${node('validator-1', 'mainnet')}alerts:\n  receivers:\n    - {name: c, webhook: {url: "http://127.0.0.1:1/c"}, matchers: {check: network}}\n`);
    expect(pagingCheck(byCheck)).toMatchObject({ receivers: [], unrouted: ['validator-1'] });
    const byTarget = configOf(`nodes:\n${node('validator-1', 'mainnet')}alerts:\n  receivers:\n    - {name: t, webhook: {url: "http://127.0.0.1:1/t"}, matchers: {target: validator-1, env: mainnet}}\n`);
    expect(pagingCheck(byTarget)).toMatchObject({ receivers: ['t'], unrouted: [] });
  });

  it('is worked out once per config', () => {
    const config = configOf(`nodes:\n${node('validator-1', 'mainnet')}`);
    expect(pagingCheck(config)).toBe(pagingCheck(config));
  });
});
