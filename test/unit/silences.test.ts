/**
 * Silences and maintenance windows on their own (src/alerts/silences.ts): what POST /api/v1/silences
 * accepts and refuses, with which words; what a silence would match; the store across a restart;
 * and which silence holds an alert at a given time. test/integration/silence-checks.test.ts runs the
 * same through a daemon's API; these run where a mutation run reaches them.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileLabelMatcher, MAX_SILENCE_MS, matcherProblem, silenceBodySchema, Silences, silenceScopeProblem, type SilenceScope } from '../../src/alerts/silences.js';
import { parseConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';

const log = createLogger({ level: 'silent', format: 'json' });
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
/** The first message zod gives for a body, or undefined when it is accepted. */
const refusal = (body: unknown) => {
  const parsed = silenceBodySchema.safeParse(body);
  return parsed.success ? undefined : parsed.error.issues[0]!.message;
};

describe('a silence posted to the API', () => {
  it('is read into epoch milliseconds, its start and words optional', () => {
    const endsAt = Date.now() + HOUR;
    expect(silenceBodySchema.parse({ matchers: { target: 'v1' }, endsAt: iso(endsAt) })).toEqual({ matchers: { target: 'v1' }, endsAt });
    const startsAt = Date.now() - HOUR;
    expect(silenceBodySchema.parse({ matchers: { target: '~v.*' }, endsAt: iso(endsAt), startsAt: iso(startsAt), comment: 'disk swap', createdBy: 'alice' })).toEqual({
      matchers: { target: '~v.*' },
      endsAt,
      startsAt,
      comment: 'disk swap',
      createdBy: 'alice',
    });
  });

  it('is refused with words that say what to send', () => {
    const endsAt = iso(Date.now() + HOUR);
    const matchersMessage = 'matchers must be a non-empty object of label: value (or label: "~regex")';
    expect(refusal({ matchers: {}, endsAt })).toBe(matchersMessage);
    expect(refusal({ matchers: 'v1', endsAt })).toBe(matchersMessage);
    expect(silenceBodySchema.safeParse({ matchers: { target: 7 }, endsAt }).error!.issues[0]!.path).toEqual(['matchers', 'target']);
    expect(refusal({ matchers: { target: '~(' }, endsAt })).toMatch(/^matchers\.target: invalid regular expression: /);
    expect(refusal({ matchers: { target: 'v1' }, endsAt: iso(Date.now() - 1000) })).toMatch(/^endsAt must be a future date-time such as \d{4}-\d\d-\d\dT\d\d:\d\d:00Z$/);
    expect(refusal({ matchers: { target: 'v1' }, endsAt: 'tomorrow' })).toMatch(/^endsAt must be a future date-time such as /);
    expect(refusal({ matchers: { target: 'v1' } })).toMatch(/^endsAt must be a future date-time such as /);
    expect(refusal({ matchers: { target: 'v1' }, endsAt, startsAt: 'soon' })).toMatch(/^startsAt must be a date-time such as /);
    expect(refusal({ matchers: { target: 'v1' }, endsAt: iso(Date.now() + MAX_SILENCE_MS + HOUR) })).toMatch(/^endsAt must be within a year \(by \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\): a longer silence is forgotten, not maintained; put a lasting one in the config \(alerts\.silences\)/);
    expect(refusal({ matchers: { target: 'v1' }, endsAt, startsAt: endsAt })).toBe('startsAt must be before endsAt');
    expect(refusal({ matchers: { target: 'v1' }, endsAt, comment: 'x'.repeat(4097) })).toBe('comment must be at most 4096 characters');
    expect(refusal({ matchers: { target: 'v1' }, endsAt, comment: 'x'.repeat(4096) })).toBeUndefined();
    expect(refusal({ matchers: { target: 'v1' }, endsAt, createdBy: 'x'.repeat(257) })).toBe('createdBy must be at most 256 characters');
    expect(refusal({ matchers: { target: 'v1' }, endsAt, createdBy: 'x'.repeat(256) })).toBeUndefined();
  });

  it('its matchers are capped in count and size', () => {
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${i}`, 'v']));
    expect(matcherProblem(many(32))).toBeUndefined();
    expect(matcherProblem(many(33))).toBe('at most 32 matchers');
    expect(matcherProblem({ ['n'.repeat(128)]: 'v' })).toBeUndefined();
    expect(matcherProblem({ ['n'.repeat(129)]: 'v' })).toBe('matcher label names are at most 128 characters');
    expect(matcherProblem({ target: 'v'.repeat(1024) })).toBeUndefined();
    expect(matcherProblem({ target: 'v'.repeat(1025) })).toBe('matchers.target: at most 1024 characters');
  });

  it('a `~` matcher is a full RE2 match, anything else equality', () => {
    expect(compileLabelMatcher('~val.*')('validator-1')).toBe(true);
    expect(compileLabelMatcher('~alid')('validator-1')).toBe(false); // not a search
    expect(compileLabelMatcher('validator-1')('validator-1')).toBe(true);
    expect(compileLabelMatcher('validator')('validator-1')).toBe(false);
    expect(compileLabelMatcher('val.*')('validator-1')).toBe(false); // no `~`: the dot is a dot
  });
});

describe('what a silence would match', () => {
  const scope: SilenceScope = {
    targets: new Set(['node-1', 'node-2', 'validator-1']),
    labelNames: new Set(['alertname', 'target', 'check', 'severity']),
    alertnames: new Set(['AvalancheCheckFailing', 'AvalancheDiskLow']),
    otherShards: new Set(['node-9']),
  };

  it('matches something today: nothing to say', () => {
    expect(silenceScopeProblem({ target: 'node-1', check: 'anything', alertname: 'AvalancheDiskLow' }, scope)).toBeUndefined();
    expect(silenceScopeProblem({ target: '~node-.*', alertname: '~Avalanche.*' }, scope)).toBeUndefined();
  });

  it('a typo is refused with the nearest name; a name far from any gets none', () => {
    expect(silenceScopeProblem({ tagret: 'node-1' }, scope)).toBe('matchers.tagret: no alert carries the label "tagret" (did you mean "target"?); the silence would match nothing (labels: alertname, check, severity, target)');
    expect(silenceScopeProblem({ target: 'node-l' }, scope)).toBe('matchers.target: no target is named "node-l" (did you mean "node-1"?); the silence would match nothing');
    expect(silenceScopeProblem({ alertname: 'AvalancheDiskLo' }, scope)).toBe('matchers.alertname: no alert is named "AvalancheDiskLo" (did you mean "AvalancheDiskLow"?); the silence would match nothing');
    expect(silenceScopeProblem({ target: 'rpc-east' }, scope)).toBe('matchers.target: no target is named "rpc-east"; the silence would match nothing');
    expect(silenceScopeProblem({ region: 'eu' }, scope)).toBe('matchers.region: no alert carries the label "region"; the silence would match nothing (labels: alertname, check, severity, target)');
  });

  it('a target of another shard is sent there; a regex that matches none today is refused', () => {
    expect(silenceScopeProblem({ target: 'node-9' }, scope)).toBe('matchers.target: "node-9" is watched by another shard, and a silence holds only on the replica that received it; post it there, or put it in the config (alerts.silences), which every shard reads');
    expect(silenceScopeProblem({ target: '~rpc-.*' }, scope)).toBe('matchers.target: "~rpc-.*" matches no target today; the silence would match nothing');
    expect(silenceScopeProblem({ alertname: '~Disk.*' }, scope)).toBe('matchers.alertname: "~Disk.*" matches no alert today; the silence would match nothing');
  });
});

describe('the silence store', () => {
  const T0 = Date.UTC(2026, 11, 6, 12);
  const configWith = (alerts: string, dir: string) => parseConfig(`state_dir: ${dir}\nalerts:${alerts ? `\n${alerts}` : ' {}\n'}`, join(dir, 'c.yaml'), {}).alerts;

  it('keeps API silences across a restart, lists the config ones beside them, and forgets ended ones', () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-silences-'));
    const alerts = configWith(`  silences:\n    - {matchers: {target: "~node-.*"}, ends_at: "${iso(T0 + 2 * HOUR)}", comment: upgrade}\n`, dir);
    const store = new Silences(alerts, dir, log);
    const kept = store.add({ matchers: { target: 'v1' }, endsAt: T0 + HOUR, comment: 'disk swap', createdBy: 'alice' }, T0);
    const bare = store.add({ matchers: { target: 'v2' }, endsAt: T0 + 3 * HOUR, startsAt: T0 + HOUR }, T0);
    expect(bare).toMatchObject({ startsAt: T0 + HOUR, comment: '', createdBy: 'api', source: 'api' });
    const restarted = new Silences(alerts, dir, log);
    expect(restarted.list(T0)).toEqual([
      { id: 'config-0', matchers: { target: '~node-.*' }, startsAt: 0, endsAt: T0 + 2 * HOUR, comment: 'upgrade', createdBy: 'config', source: 'config' },
      { id: kept.id, matchers: { target: 'v1' }, startsAt: T0, endsAt: T0 + HOUR, comment: 'disk swap', createdBy: 'alice', source: 'api' },
      bare,
    ]);
    expect(restarted.list(T0 + HOUR).map((s) => s.id)).toEqual(['config-0', bare.id]); // ends at its endsAt
    expect(restarted.expire(bare.id)).toBe(true);
    expect(restarted.expire(bare.id)).toBe(false);
    expect(new Silences(alerts, dir, log).list(T0).map((s) => s.id)).toEqual(['config-0', kept.id]);
    // an add drops the ended ones from the file
    restarted.add({ matchers: { target: 'v3' }, endsAt: T0 + 5 * HOUR }, T0 + 2 * HOUR);
    const stored = JSON.parse(readFileSync(join(dir, 'silences.json'), 'utf8')) as { silences: Array<{ matchers: unknown }> };
    expect(stored.silences.map((s) => s.matchers)).toEqual([{ target: 'v3' }]);
  });

  it('a stored silence that cannot be used is dropped, one beyond a year held to a year, an unreadable file set aside', () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-silences-'));
    const silence = (id: string, matchers: Record<string, string>, endsAt: number) => ({ id, matchers, startsAt: 0, endsAt, comment: '', createdBy: 'api', source: 'api' });
    const farAway = 8_640_000_000_000_000;
    writeFileSync(join(dir, 'silences.json'), JSON.stringify({ version: 1, silences: [silence('bad', { target: '~(' }, Date.now() + HOUR), silence('far', { target: 'v1' }, farAway)] }));
    const before = Date.now();
    const listed = new Silences(configWith('', dir), dir, log).list();
    expect(listed.map((s) => s.id)).toEqual(['far']);
    expect(listed[0]!.endsAt).toBeGreaterThanOrEqual(before + MAX_SILENCE_MS);
    expect(listed[0]!.endsAt).toBeLessThanOrEqual(Date.now() + MAX_SILENCE_MS);

    const corrupt = mkdtempSync(join(tmpdir(), 'avahealth-silences-'));
    writeFileSync(join(corrupt, 'silences.json'), '{"silences": [{"id": 1}]}');
    expect(new Silences(configWith('', corrupt), corrupt, log).list()).toEqual([]);
    expect(existsSync(join(corrupt, 'silences.json'))).toBe(false);
    expect(readdirSync(corrupt).some((name) => name.startsWith('silences.json.'))).toBe(true);
  });

  it('which silence holds an alert, from when until when; a maintenance window by its cron start and duration', () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-silences-'));
    const alerts = configWith(
      `  silences:\n    - {matchers: {target: v1}, starts_at: "${iso(T0)}", ends_at: "${iso(T0 + HOUR)}", comment: swap}\n` +
        `  maintenance:\n    - {matchers: {target: "~rpc-.*"}, schedule: "0 0 3 * * *", duration: 30m}\n`,
      dir,
    );
    const store = new Silences(alerts, dir, log);
    const api = store.add({ matchers: { target: '~v.*', check: 'C' }, endsAt: T0 + 2 * HOUR, createdBy: 'bob', comment: 'reindex' }, T0);
    const v1 = { alertname: 'AvalancheCheckFailing', target: 'v1', check: 'C' };
    expect(store.silencing(v1, T0 - 1)).toBeUndefined(); // before both
    expect(store.silencing(v1, T0)).toEqual({ id: 'config-0', endsAt: T0 + HOUR, comment: 'swap', createdBy: 'config' }); // the config's first
    expect(store.silencing(v1, T0 + HOUR)).toEqual({ id: api.id, endsAt: T0 + 2 * HOUR, comment: 'reindex', createdBy: 'bob' });
    expect(store.holds(v1, T0 + HOUR)).toBe(`silenced (${api.id})`);
    expect(store.silencing({ ...v1, check: 'P' }, T0 + HOUR)).toBeUndefined(); // every matcher must match
    expect(store.silencing({ ...v1, target: 'x-v1' }, T0 + HOUR)).toBeUndefined(); // a full match
    expect(store.silencing(v1, T0 + 2 * HOUR)).toBeUndefined();

    const rpc = { alertname: 'AvalancheNodeUnhealthy', target: 'rpc-1' };
    const three = new Date(2026, 11, 7, 3).getTime(); // 03:00 where the process runs, as the cron reads it
    expect(store.silencing(rpc, three - 1)).toBeUndefined();
    expect(store.silencing(rpc, three)).toEqual({ id: 'maintenance window', endsAt: three + 30 * 60_000, comment: '0 0 3 * * *', createdBy: 'config' });
    expect(store.holds(rpc, three + 30 * 60_000 - 1)).toBe('maintenance window');
    expect(store.holds(rpc, three + 30 * 60_000)).toBeUndefined();
    expect(store.holds({ ...rpc, target: 'v9' }, three)).toBeUndefined();
  });
});
