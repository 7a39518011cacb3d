import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { durationSeconds } from '../../src/alerts/rules/rule.js';
import { ConfigError } from '../../src/config/errors.js';
import { loadConfigFile, parseConfig } from '../../src/config/load.js';
import { jsonSchema } from '../../src/config/schema.js';
import { secretsOf } from '../../src/config/secrets.js';
import { ROOT } from '../helpers/cli.js';
import { OWN_FIXTURES } from '../helpers/fixtures.js';

const fixture = (name: string) => join(OWN_FIXTURES, 'config', name);

function problems(text: string, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    parseConfig(text, 'cfg.yaml', env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message.split('\n');
    throw err;
  }
  throw new Error('expected the config to be rejected');
}

describe('config loading', () => {
  it('the minimal config from the issue works exactly as written', () => {
    const config = loadConfigFile(fixture('minimal.yaml'));
    expect(config.listen).toEqual({ host: '127.0.0.1', port: 9660 });
    expect(config.nodes).toHaveLength(2);
    const [v1, l1] = config.nodes;
    expect(v1).toMatchObject({
      name: 'validator-1',
      baseUrl: 'http://127.0.0.1:9650',
      protocol: 'get',
      intervalMs: 15_000,
      timeoutMs: 5_000,
      endpoints: ['health', 'readiness', 'liveness'],
      views: [{ name: 'all', tags: [] }],
      labels: {},
    });
    expect(l1).toMatchObject({
      name: 'l1-node',
      protocol: 'jsonrpc',
      intervalMs: 10_000,
      labels: { env: 'fuji' },
      views: [
        { name: 'all', tags: [] },
        { name: 'my-l1', tags: ['2R7XPcHo4MrMDQ7qMAzXun4nrXdxHoqX7UB5QcWjcN4rt8uceG'] },
      ],
    });
    expect(config.limits).toEqual({ maxChecksPerTarget: 200, maxLabelLength: 128, maxResponseBytes: 4 * 1024 * 1024, maxConcurrentRequests: 128, shutdownTimeoutMs: 10_000 });
  });

  it('reports a wrong type at its line and column', () => {
    expect(problems('nodes:\n  - name: a\n    url: http://x:1\n    interval: 10\n')).toEqual(['cfg.yaml:4:15: nodes.0.interval: must be a duration such as 15s: 10 has no unit (did you mean "10s"?)']);
  });

  it('says what a key takes in the words of YAML, inside a union too, with a hint for the usual slips', () => {
    expect(problems('nodes:\n  - name: a\n    url: http://x:1\n    labels: [env, test]\n')).toEqual(['cfg.yaml:4:13: nodes.0.labels: expected a mapping (name: value), got a list']);
    expect(problems('nodes:\n  - name: a\n    url: http://x:1\n    validator:\n      uptime_requirement: "90%"\n')).toEqual(['cfg.yaml:5:27: nodes.0.validator.uptime_requirement: must be a ratio from 0.5 to 1 (write 0.9 for 90%)']);
    expect(problems('nodes:\n  - name: a\n    url: http://x:1\n    validator: yes\n')).toEqual(['cfg.yaml:4:16: nodes.0.validator: must be false or a mapping (key: value)']);
  });

  it('says a number out of range in words: the bound, and a ratio written as a percentage', () => {
    const node = (extra: string) => `nodes:\n  - name: a\n    url: http://x:1\n${extra}`;
    expect(problems(node('    validator:\n      uptime_requirement: 90\n'))).toEqual(['cfg.yaml:5:27: nodes.0.validator.uptime_requirement: must be a ratio from 0.5 to 1 (write 0.9 for 90%)']);
    expect(problems(node('    validator:\n      uptime_requirement: 0.4\n'))).toEqual(['cfg.yaml:5:27: nodes.0.validator.uptime_requirement: must be a ratio from 0.5 to 1']);
    expect(problems(node('    validator:\n      staking_port: 70000\n'))).toEqual(['cfg.yaml:5:21: nodes.0.validator.staking_port: must be at most 65535']);
    expect(problems(node('    validator:\n      network: {observers: 0}\n'))).toEqual(['cfg.yaml:5:28: nodes.0.validator.network.observers: must be at least 1']);
    // no zod wording left in any of them
    for (const extra of ['    validator:\n      uptime_requirement: 90\n', '    validator:\n      staking_port: 0\n']) for (const line of problems(node(extra))) expect(line).not.toMatch(/Too (big|small)|expected number to be/);
  });

  it('warns of a silence in the config that has already ended: it holds nothing', () => {
    const yaml = (endsAt: string) => `nodes:\n  - {name: a, url: "http://127.0.0.1:1"}\nalerts:\n  silences:\n    - {matchers: {target: a}, ends_at: "${endsAt}", comment: swap}\n`;
    const ended = parseConfig(yaml('2026-01-01T00:00:00Z'), 'cfg.yaml', {});
    expect(ended.warnings).toEqual([{ file: 'cfg.yaml', line: 5, col: 40, message: 'alerts.silences.0 ended at 2026-01-01T00:00:00Z: it holds nothing; remove it, or give it a later ends_at' }]);
    expect(parseConfig(yaml(new Date(Date.now() + 3_600_000).toISOString()), 'cfg.yaml', {}).warnings).toEqual([]);
  });

  it('refuses a node URL copied with an API path, suggesting its base', () => {
    expect(problems('nodes:\n  - {name: a, url: "https://user:pw@node.example:9650/ext/health"}\n')).toEqual([
      'cfg.yaml:2:20: nodes.0.url: is an AvalancheGo API path, not the node\'s base URL: avahealth adds /ext/health, /ext/info and the others itself (did you mean "https://node.example:9650"?)',
    ]);
    expect(problems('nodes:\n  - {name: a, url: "http://proxy.example/avax/ext/bc/C/rpc"}\n')[0]).toContain('(did you mean "http://proxy.example/avax"?)');
    expect(parseConfig('nodes:\n  - {name: a, url: "http://proxy.example/external/node"}\n', 'cfg.yaml', {}).nodes[0]!.baseUrl).toBe('http://proxy.example/external/node');
  });

  it('reports an unknown key at the key, with a did-you-mean hint', () => {
    expect(problems('nodes:\n  - name: a\n    url: http://x:1\n    intervall: 10s\n')).toEqual(['cfg.yaml:4:5: unknown key "intervall" in nodes.0 (did you mean "interval"?)']);
    expect(problems('listn: 127.0.0.1:9660\n')).toEqual(['cfg.yaml:1:1: unknown key "listn" (did you mean "listen"?)']);
    expect(problems('nodes: []\nzzzzzz: 1\n')).toEqual(['cfg.yaml:2:1: unknown key "zzzzzz"']);
  });

  it('reports YAML syntax errors with their position', () => {
    const [first] = problems('nodes:\n  - name: a\n    url: [http://x:1\n');
    expect(first).toMatch(/^cfg\.yaml:\d+:\d+: YAML syntax error: /);
  });

  it('reports several problems at once, and a missing key at its parent', () => {
    expect(problems('nodes:\n  - name: "bad name!"\n  - url: http://x:1\n')).toEqual([
      'cfg.yaml:2:11: nodes.0.name: target names are 1–63 characters of letters, digits, _ . : - (starting with a letter or digit)',
      'cfg.yaml:2:5: nodes.0.url: required (text)',
      'cfg.yaml:3:5: nodes.1.name: required (text)',
    ]);
  });

  it('checks durations, enums, label names, duplicates and cron patterns', () => {
    expect(problems('nodes:\n  - {name: a, url: "http://x:1", interval: 500ms}\n')).toEqual(['cfg.yaml:2:44: nodes.0.interval: must be at least 1s']);
    expect(problems('nodes:\n  - {name: a, url: "http://x:1", protocol: grpc}\n')).toEqual(['cfg.yaml:2:44: nodes.0.protocol: must be one of "get", "jsonrpc"']);
    expect(problems('nodes:\n  - {name: a, url: "http://x:1", labels: {target: x}}\n')[0]).toContain('is set by avahealth itself');
    expect(problems('nodes:\n  - {name: a, url: "http://x:1"}\n  - {name: a, url: "http://y:1"}\n')).toEqual(['cfg.yaml:3:12: duplicate target name "a" (first at nodes[0])']);
    expect(problems('nodes:\n  - {name: a, url: "http://x:1", schedule: "every minute"}\n')[0]).toContain('must be a cron pattern');
    expect(problems('nodes:\n  - {name: a, url: "ftp://x:1"}\n')[0]).toContain('must be an http:// or https:// URL');
    // a node's address as AvalancheGo's docs write it gets the URL it means
    expect(problems('nodes:\n  - {name: a, url: "127.0.0.1:9650"}\n')).toEqual(['cfg.yaml:2:20: nodes.0.url: must be an http:// or https:// URL (did you mean "http://127.0.0.1:9650"?)']);
    expect(problems('nodes:\n  - {name: a, url: "ftp://x:1"}\n')[0]).not.toContain('did you mean');
  });

  it('substitutes ${ENV} with defaults and $$ escapes; an unset variable is an empty value, located', () => {
    const config = parseConfig('nodes:\n  - name: a\n    url: ${NODE_URL}\n    headers: {x-api-key: "${KEY:-fallback}", x-price: "$$5"}\n', 'cfg.yaml', { NODE_URL: 'http://10.0.0.1:9650/' });
    expect(config.nodes[0]!.baseUrl).toBe('http://10.0.0.1:9650');
    expect(config.nodes[0]!.headers).toEqual({ 'x-api-key': 'fallback', 'x-price': '$5' });
    expect(config.nodes[0]!.secrets).toEqual(['fallback', '$5']); // every header value, whatever its name
    expect(problems('nodes:\n  - name: a\n    url: ${NODE_URL}\n')).toEqual(['cfg.yaml:3:10: nodes.0.url: must be an http:// or https:// URL (environment variable NODE_URL is not set)']);
    const optional = parseConfig('services:\n  - {name: d, kind: data-api, url: "http://x:1", api_key: "${DATA_API_KEY}"}\n', 'cfg.yaml', {});
    expect(optional.services[0]!.headers).toEqual({});
    expect(optional.warnings).toEqual([{ file: 'cfg.yaml', line: 2, col: 59, message: 'environment variable DATA_API_KEY is not set; using an empty value' }]);
  });

  it('header values are secrets but those of harmless headers written out; from ${ENV} even those are', () => {
    const config = parseConfig(
      'defaults:\n  headers: {Cache-Control: no-cache}\nnodes:\n  - name: a\n    url: http://x:1\n    headers: {Accept: application/json, Content-Type: "${CT}", X-Scope: team-7, Cookie: session=abc1}\n' +
        'services:\n  - {name: d, kind: data-api, url: "http://x:1", headers: {User-Agent: probe/1.0, X-Tenant: acme-corp}}\n' +
        'alerts:\n  receivers:\n    - {name: h, webhook: {url: "http://hook:1/x", headers: {content-type: application/json, X-Token: "${TOKEN}"}}}\n',
      'cfg.yaml',
      { CT: 'application/vnd.secret+json', TOKEN: 'tok-123456' },
    );
    expect(config.nodes[0]!.secrets.sort()).toEqual(['application/vnd.secret+json', 'session=abc1', 'team-7']);
    expect(config.services[0]!.secrets).toEqual(['acme-corp']);
    expect(config.alerts.receivers[0]!.secrets).toContain('tok-123456');
    expect(config.alerts.receivers[0]!.secrets).not.toContain('application/json');
    expect(secretsOf(config)).not.toContain('application/json');
    expect(secretsOf(config)).not.toContain('no-cache');
    expect(secretsOf(config)).not.toContain('probe/1.0');
    expect(config.nodes[0]!.headers).toMatchObject({ 'cache-control': 'no-cache', accept: 'application/json' }); // names lowercased
    expect(problems('nodes:\n  - {name: a, url: "http://x:1", headers: {Accept: a/b, accept: c/d}}\n')[0]).toContain('header "accept" is given twice');
  });

  it('external_url defaults to a URL that reaches the listen address: IPv6 in brackets, unspecified as loopback', () => {
    const externalUrl = (listen: string) => parseConfig(`listen: "${listen}"\n`, 'cfg.yaml').externalUrl;
    expect(externalUrl('[::1]:9101')).toBe('http://[::1]:9101');
    expect(externalUrl('[::]:9101')).toBe('http://[::1]:9101');
    expect(externalUrl('[2001:db8::7]:9101')).toBe('http://[2001:db8::7]:9101');
    expect(externalUrl('0.0.0.0:9660')).toBe('http://127.0.0.1:9660');
    expect(externalUrl(':9660')).toBe('http://127.0.0.1:9660');
    expect(externalUrl('monitor.internal:9660')).toBe('http://monitor.internal:9660');
    for (const listen of ['[::1]:9101', '[::]:9101', '[2001:db8::7]:9101']) expect(URL.canParse(externalUrl(listen))).toBe(true);
    expect(parseConfig('listen: "[::]:9101"\nexternal_url: https://health.example\n', 'cfg.yaml').externalUrl).toBe('https://health.example');
  });

  it('reads *_file secrets relative to the config, and reports unreadable ones', () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-cfg-'));
    writeFileSync(join(dir, 'token'), 's3cret-token\n');
    writeFileSync(join(dir, 'pw'), 'hunter2-pw\n');
    const file = join(dir, 'c.yaml');
    writeFileSync(file, 'nodes:\n  - name: a\n    url: http://x:1\n    bearer_token_file: token\n  - name: b\n    url: http://y:1\n    basic_auth: {username: ops, password_file: pw}\n');
    const config = loadConfigFile(file);
    expect(config.nodes[0]!.headers.authorization).toBe('Bearer s3cret-token');
    expect(config.nodes[0]!.secrets).toContain('s3cret-token');
    expect(config.nodes[1]!.headers.authorization).toBe(`Basic ${Buffer.from('ops:hunter2-pw').toString('base64')}`);
    expect(config.nodes[1]!.secrets).toContain('hunter2-pw');
    writeFileSync(file, 'nodes:\n  - name: a\n    url: http://x:1\n    bearer_token_file: missing\n');
    expect(() => loadConfigFile(file)).toThrow(/c\.yaml:4:24: cannot read bearer_token_file: ENOENT/);
  });

  it('user:password@ in a node or service URL becomes basic auth: stripped from the URL, registered as secrets', () => {
    const config = parseConfig('nodes:\n  - {name: a, url: "http://ops:s%3Acret-pw@x:1/prefix/"}\nservices:\n  - {name: d, kind: data-api, url: "https://me:api-pass@data.example"}\n', 'cfg.yaml');
    const basic = (userinfo: string) => `Basic ${Buffer.from(userinfo).toString('base64')}`;
    expect(config.nodes[0]).toMatchObject({ baseUrl: 'http://x:1/prefix', headers: { authorization: basic('ops:s:cret-pw') } });
    expect(config.nodes[0]!.secrets).toEqual(expect.arrayContaining(['s:cret-pw', 's%3Acret-pw', basic('ops:s:cret-pw').slice(6)]));
    expect(config.services[0]).toMatchObject({ baseUrl: 'https://data.example', headers: { authorization: basic('me:api-pass') } });
    expect(config.services[0]!.secrets).toContain('api-pass');
    expect(problems('nodes:\n  - {name: a, url: "http://ops:pw@x:1", basic_auth: {username: u, password: p}}\n')).toEqual([
      'cfg.yaml:2:20: nodes.0.url: carries user:password@ and basic_auth is set too; use one',
    ]);
  });

  it('applies defaults: unless a node sets its own; timeout never exceeds the interval', () => {
    const config = parseConfig(
      'defaults:\n  interval: 2s\n  protocol: jsonrpc\n  endpoints: [health]\n  labels: {env: prod}\nnodes:\n  - {name: a, url: "http://x:1"}\n  - {name: b, url: "http://y:1", protocol: get, labels: {env: dev, zone: z1}}\n',
      'cfg.yaml',
    );
    expect(config.nodes[0]).toMatchObject({ intervalMs: 2000, timeoutMs: 2000, protocol: 'jsonrpc', endpoints: ['health'], labels: { env: 'prod' } });
    expect(config.nodes[1]).toMatchObject({ protocol: 'get', labels: { env: 'dev', zone: 'z1' } });
  });

  it('thresholds in seconds take a duration (14d, 36h) and refuse other text', () => {
    const yaml = (threshold: string) => `nodes: [{name: n, url: "http://127.0.0.1:9650"}]\nalerts:\n  rules:\n    AvalancheL1ValidatorBalanceLow: {threshold: ${threshold}, critical_threshold: 36h}\n    AvalancheValidatorEndingSoon: {threshold: 1d12h}\n`;
    const config = parseConfig(yaml('14d'), 'a.yaml');
    expect(config.alerts.rules.AvalancheL1ValidatorBalanceLow).toMatchObject({ threshold: 14 * 86_400, critical_threshold: 36 * 3600 });
    expect(config.alerts.rules.AvalancheValidatorEndingSoon).toMatchObject({ threshold: 1.5 * 86_400 });
    expect(parseConfig(yaml('1209600'), 'a.yaml').alerts.rules.AvalancheL1ValidatorBalanceLow).toMatchObject({ threshold: 1_209_600 });
    expect(() => parseConfig(yaml('two-weeks'), 'a.yaml')).toThrow(ConfigError);
    expect(() => parseConfig(yaml('two-weeks'), 'a.yaml')).toThrow(/a duration such as 14d/);
    // a line break is a wrong value, said as such, not a crash of the parser
    expect(() => parseConfig(yaml('"14d\\n"'), 'a.yaml')).toThrow(ConfigError);
  });

  it('a duration is whole days (decimals too) then Go units, never negative nor empty', () => {
    expect(durationSeconds('14d')).toBe(14 * 86_400);
    expect(durationSeconds('1.5d')).toBe(1.5 * 86_400);
    expect(durationSeconds('1.25d')).toBe(1.25 * 86_400);
    expect(durationSeconds('1d12h')).toBe(1.5 * 86_400);
    expect(durationSeconds('90m')).toBe(5_400);
    expect(durationSeconds('0s')).toBe(0);
    expect(durationSeconds('0d')).toBe(0);
    for (const wrong of ['', 'd', '14', '-1h', '1d-1h', 'x14d', '14dd', '1.d', '1d\n', '\n1d']) expect(durationSeconds(wrong), wrong).toBeUndefined();
  });

  it('an empty file is a valid config with no targets', () => {
    expect(parseConfig('', 'empty.yaml').nodes).toEqual([]);
  });
});

describe('JSON Schema', () => {
  it('is draft-07, strict, and describes node options', () => {
    const schema = jsonSchema() as { $schema: string; additionalProperties: boolean; properties: { nodes: { items: { properties: Record<string, unknown>; required: string[] } } } };
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties.nodes.items.properties)).toEqual(expect.arrayContaining(['name', 'url', 'protocol', 'interval', 'timeout', 'views', 'labels', 'endpoints', 'headers', 'ca_file', 'insecure_skip_verify']));
    expect(schema.properties.nodes.items.required).toEqual(['name', 'url']);
  });
});

describe('docs/configuration.md', () => {
  type SchemaNode = { properties?: Record<string, SchemaNode>; items?: SchemaNode; default?: unknown };
  const schema = jsonSchema() as SchemaNode;
  const SECTIONS: Record<string, string> = { 'Top level': '', Nodes: 'nodes[]', Services: 'services[]', 'API probes': 'services[].probes[]', 'Chain data': 'chain_data', Discovery: 'discovery' };
  const nodeAt = (path: string): SchemaNode | undefined =>
    path
      .split('.')
      .filter(Boolean)
      .reduce<SchemaNode | undefined>((node, part) => {
        const child = node?.properties?.[part.replace(/\[\]$/, '')];
        return part.endsWith('[]') ? child?.items : child;
      }, schema);
  const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

  /** Each documented `key` → its backticked default (the Nodes table's ✓ rows document `defaults:`). */
  function documented(): Map<string, string | undefined> {
    const rows = new Map<string, string | undefined>();
    let base: string | undefined;
    for (const line of readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8').split('\n')) {
      const heading = /^#{2,3} ([^(]+?)(?: \(|$)/.exec(line);
      if (heading) base = SECTIONS[heading[1]!.trim()];
      if (base === undefined || !line.startsWith('| `')) continue;
      const cells = line.split(' | ').map((c) => c.replace(/^\| |\|$/g, '').trim());
      const keys = [...cells[0]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
      const defaults = cells[1]!.split(', ');
      const inherited = base === 'nodes[]' && cells[2] === '✓';
      keys.forEach((key, i) => {
        const value = /^`([^`]*)`$/.exec(defaults.length === keys.length ? defaults[i]! : cells[1]!)?.[1];
        rows.set(`${inherited ? 'defaults' : base}.${key}`.replace(/^\./, ''), value);
      });
    }
    return rows;
  }

  it('documents every default the schema has, with the schema\'s value', () => {
    const rows = documented();
    expect(rows.size).toBeGreaterThan(40);
    for (const [path, value] of rows) {
      const node = nodeAt(path);
      expect(node, `${path} is documented but not in the schema`).toBeDefined();
      if (value !== undefined) expect(shown(node!.default), path).toBe(value);
    }
    const walk = (node: SchemaNode, path: string): void => {
      const value = node.default;
      // Scalar defaults must be in the tables; lists and mappings are described in words.
      if (value !== undefined && (value === null || typeof value !== 'object')) expect(rows.get(path), `the default of ${path} is not in docs/configuration.md`).toBe(shown(value));
      for (const [key, child] of Object.entries(node.properties ?? {})) walk(child, `${path ? `${path}.` : ''}${key}`);
      if (node.items) walk(node.items, `${path}[]`);
    };
    for (const section of ['', 'defaults', 'services[]', 'chain_data', 'discovery']) {
      const node = nodeAt(section)!;
      for (const [key, child] of Object.entries(node.properties ?? {})) if (section !== '' || ['listen', 'log', 'limits', 'nodes', 'services', 'state_dir'].includes(key)) walk(child, `${section ? `${section}.` : ''}${key}`);
    }
  });

  it('a secret value shorter than 4 characters, which is never redacted, is warned of where it is configured, without its value', () => {
    const config = parseConfig(
      `nodes:
  - {name: a, url: "http://127.0.0.1:9650", headers: {X-Tenant: q7z}}
  - {name: b, url: "http://127.0.0.1:9651", headers: {X-Tenant: long-enough}, basic_auth: {username: op, password: longer}}
alerts:
  receivers:
    - {name: hook, webhook: {url: "http://127.0.0.1:1/h", secret: k9}}
`,
      'cfg.yaml',
      {},
    );
    expect(config.warnings.map((w) => `${w.line}:${w.col} ${w.message.split(':')[0]}`)).toEqual([
      '2:5 node "a" has a secret value (a header value, token or password) shorter than 4 characters',
      '6:7 receiver "hook" has a secret value (a header value, token or password) shorter than 4 characters',
    ]);
    expect(JSON.stringify(config.warnings)).not.toMatch(/q7z|k9/);
    expect(secretsOf(config)).not.toContain('q7z');
  });
});
