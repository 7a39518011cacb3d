/**
 * Silences (from config, and made at runtime through POST /api/v1/silences, persisted) and
 * recurring maintenance windows: matching alerts keep their state but do not notify.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { Cron } from 'croner';
import { z } from 'zod';
import type { AlertsConfig, Matcher } from '../config/load.js';
import type { Logger } from '../log.js';
import { readJsonFile, writeJsonAtomic } from '../state/atomic.js';
import { statePath } from '../state/map.js';

export interface Silence {
  id: string;
  matchers: Record<string, string>;
  startsAt: number;
  endsAt: number;
  comment: string;
  createdBy: string;
  source: 'config' | 'api';
}

/** Which silence holds an alert, and until when (epoch ms). */
export interface SilencedBy {
  id: string;
  endsAt: number;
  comment: string;
  createdBy: string;
}

const MAINTENANCE = 'maintenance window';

const MATCHERS_MESSAGE = 'matchers must be a non-empty object of label: value (or label: "~regex")';
const MAX_MATCHERS = 32;
const MAX_LABEL_NAME = 128;
const MAX_MATCHER_VALUE = 1024;

/** A compiled label matcher: `~regex` is a full match in RE2 syntax (linear time, as Alertmanager's Go regexp), anything else equality. */
export type LabelTest = (value: string) => boolean;

type RE2 = typeof import('re2js').RE2JS;
let loadedRe2: RE2 | undefined;
/** re2js is loaded with the first regex matcher: most daemons never have one. */
const re2 = (): RE2 => (loadedRe2 ??= (createRequire(import.meta.url)('re2js') as { RE2JS: RE2 }).RE2JS);

/** Compiles `value`; throws with RE2's message when the regex is invalid. */
export function compileLabelMatcher(value: string): LabelTest {
  if (!value.startsWith('~')) return (label) => label === value;
  const pattern = re2().compile(value.slice(1));
  return (label) => pattern.matches(label);
}

/** Why this matcher set cannot be used, or undefined when it can. */
export function matcherProblem(matchers: Record<string, string>): string | undefined {
  const entries = Object.entries(matchers);
  if (entries.length > MAX_MATCHERS) return `at most ${MAX_MATCHERS} matchers`;
  for (const [name, value] of entries) {
    if (name.length > MAX_LABEL_NAME) return `matcher label names are at most ${MAX_LABEL_NAME} characters`;
    if (value.length > MAX_MATCHER_VALUE) return `matchers.${name}: at most ${MAX_MATCHER_VALUE} characters`;
    try {
      compileLabelMatcher(value);
    } catch (err) {
      return `matchers.${name}: invalid regular expression: ${(err as Error).message}`;
    }
  }
  return undefined;
}

/** The longest an API silence may last: a longer one is forgotten, not maintained (lasting ones belong in the config). */
export const MAX_SILENCE_MS = 365 * 86_400_000;

/** An example time for messages: two hours from now, to the minute (an example in the past would be refused). */
const exampleTime = (now: number) => new Date(Math.ceil((now + 2 * 3_600_000) / 60_000) * 60_000).toISOString().replace('.000Z', 'Z');

function dateTime(field: string, future: boolean) {
  const message = (now: number) => `${field} must be a ${future ? 'future ' : ''}date-time such as ${exampleTime(now)}`;
  return z.string({ error: () => message(Date.now()) }).transform((text, ctx) => {
    const ms = Date.parse(text);
    const now = Date.now();
    if (Number.isNaN(ms) || (future && ms <= now)) {
      ctx.addIssue({ code: 'custom', message: message(now) });
      return z.NEVER;
    }
    if (future && ms > now + MAX_SILENCE_MS) {
      const latest = new Date(now + MAX_SILENCE_MS).toISOString().replace(/\.\d{3}Z$/, 'Z');
      ctx.addIssue({ code: 'custom', message: `${field} must be within a year (by ${latest}): a longer silence is forgotten, not maintained; put a lasting one in the config (alerts.silences), where every replica reads it` });
      return z.NEVER;
    }
    return ms;
  });
}

/** The body of POST /api/v1/silences: the one place it is checked (the route answers 400 with its messages). */
export const silenceBodySchema = z.object({
  matchers: z
    .record(z.string(), z.string(), { error: MATCHERS_MESSAGE })
    .refine((m) => Object.keys(m).length > 0, { message: MATCHERS_MESSAGE })
    .superRefine((m, ctx) => {
      const problem = matcherProblem(m);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  endsAt: dateTime('endsAt', true),
  startsAt: dateTime('startsAt', false).optional(),
  comment: z.string().max(4096, { error: 'comment must be at most 4096 characters' }).optional(),
  createdBy: z.string().max(256, { error: 'createdBy must be at most 256 characters' }).optional(),
}).refine((b) => b.startsAt === undefined || b.startsAt < b.endsAt, { message: 'startsAt must be before endsAt', path: ['startsAt'] });

export type SilenceInput = z.output<typeof silenceBodySchema>;

/** What a silence can match now: the fleet's targets, the label names its alerts carry, the rules' names. */
export interface SilenceScope {
  targets: ReadonlySet<string>;
  labelNames: ReadonlySet<string>;
  alertnames: ReadonlySet<string>;
  /** Targets of the fleet that other shards watch (a silence is kept by the replica that received it). */
  otherShards?: ReadonlySet<string>;
}

/**
 * Why a silence posted to the API would match nothing, or undefined: a label no alert carries, a
 * `target` or `alertname` that names none (a typo such as `node-l` silences nothing while the
 * operator believes the pages held), or a regex on them that matches none today. Refused with the
 * nearest name, rather than kept and mirrored to Alertmanager as a silence of nothing.
 */
export function silenceScopeProblem(matchers: Record<string, string>, scope: SilenceScope): string | undefined {
  for (const [name, value] of Object.entries(matchers)) {
    if (!scope.labelNames.has(name)) return `matchers.${name}: no alert carries the label "${name}"${nearest(name, scope.labelNames)}; the silence would match nothing (labels: ${[...scope.labelNames].sort().slice(0, 40).join(', ')})`;
    const known = name === 'target' ? scope.targets : name === 'alertname' ? scope.alertnames : undefined;
    if (!known) continue;
    const what = name === 'target' ? 'target' : 'alert';
    if (!value.startsWith('~')) {
      if (name === 'target' && !known.has(value) && scope.otherShards?.has(value)) return `matchers.target: "${value}" is watched by another shard, and a silence holds only on the replica that received it; post it there, or put it in the config (alerts.silences), which every shard reads`;
      if (!known.has(value)) return `matchers.${name}: no ${what} is named "${value}"${nearest(value, known)}; the silence would match nothing`;
    } else {
      const test = compileLabelMatcher(value);
      if (![...known].some(test)) return `matchers.${name}: "${value}" matches no ${what} today; the silence would match nothing`;
    }
  }
  return undefined;
}

/** ` (did you mean "x"?)` for the known name closest to `text` (at most a third of it changed), or nothing. */
function nearest(text: string, known: ReadonlySet<string>): string {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(text.length / 3)) + 1;
  for (const name of known) {
    if (Math.abs(name.length - text.length) >= bestDistance) continue;
    const d = editDistance(text, name, bestDistance);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best === undefined ? '' : ` (did you mean "${best}"?)`;
}

/** Levenshtein distance, giving up (returning `limit`) once it reaches `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let smallest = i;
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      smallest = Math.min(smallest, row[j]!);
    }
    if (smallest >= limit) return limit;
    previous = row;
  }
  return previous[b.length]!;
}

const silenceSchema: z.ZodType<Silence> = z.object({
  id: z.string(),
  matchers: z.record(z.string(), z.string()),
  startsAt: z.number(),
  endsAt: z.number(),
  comment: z.string(),
  createdBy: z.string(),
  source: z.enum(['config', 'api']),
});
const silencesFileSchema = z.object({ silences: z.array(silenceSchema) });

export function matches(matchers: Matcher[], labels: Record<string, string>): boolean {
  return matchers.every((m) => {
    const value = labels[m.name] ?? '';
    return typeof m.value === 'string' ? value === m.value : m.value.test(value);
  });
}

function matcherRecord(matchers: Matcher[]): Record<string, string> {
  return Object.fromEntries(matchers.map((m) => [m.name, typeof m.value === 'string' ? m.value : `~${m.value.source.replace(/^\^\(\?:(.*)\)\$$/, '$1')}`]));
}

export class Silences {
  private api: Silence[] = [];
  private config: AlertsConfig;
  private readonly file: string;
  private readonly crons = new Map<string, Cron>();
  private readonly compiled = new Map<string, Array<[string, LabelTest]>>();

  constructor(config: AlertsConfig, stateDir: string, private readonly log: Logger) {
    this.config = config;
    this.file = statePath.silences(stateDir);
    const read = readJsonFile(this.file, silencesFileSchema);
    if (read.status === 'ok') {
      for (const silence of read.value.silences) {
        const problem = matcherProblem(silence.matchers);
        if (problem) log.error({ id: silence.id, matchers: silence.matchers, error: problem }, 'stored silence cannot be used; dropped');
        else if (silence.endsAt > Date.now() + MAX_SILENCE_MS) {
          // Stored before the cap (an end in year 275760 that Alertmanager refuses to mirror): held to a year from now.
          const endsAt = Date.now() + MAX_SILENCE_MS;
          log.warn({ id: silence.id, matchers: silence.matchers, endsAt: new Date(endsAt).toISOString() }, 'stored silence ended more than a year ahead; it now ends a year from now');
          this.api.push({ ...silence, endsAt });
        } else this.api.push(silence);
      }
    }
    if (read.status === 'corrupt') log.error({ file: this.file, movedTo: read.movedTo, error: read.error }, 'silences file unreadable; set aside');
  }

  setConfig(config: AlertsConfig): void {
    this.config = config;
  }

  list(now = Date.now()): Silence[] {
    const fromConfig = this.config.silences.map((s, i) => ({
      id: `config-${i}`,
      matchers: matcherRecord(s.matchers),
      startsAt: s.startsAt,
      endsAt: s.endsAt,
      comment: s.comment,
      createdBy: 'config',
      source: 'config' as const,
    }));
    return [...fromConfig, ...this.api].filter((s) => s.endsAt > now);
  }

  add(input: SilenceInput, now = Date.now()): Silence {
    const silence: Silence = {
      id: randomUUID(),
      matchers: input.matchers,
      startsAt: input.startsAt ?? now,
      endsAt: input.endsAt,
      comment: input.comment ?? '',
      createdBy: input.createdBy ?? 'api',
      source: 'api',
    };
    this.api = [...this.api.filter((s) => s.endsAt > now), silence];
    this.persist();
    this.log.info({ id: silence.id, matchers: silence.matchers, endsAt: new Date(silence.endsAt).toISOString() }, 'silence added');
    return silence;
  }

  expire(id: string): boolean {
    const before = this.api.length;
    this.api = this.api.filter((s) => s.id !== id);
    if (this.api.length === before) return false;
    this.persist();
    return true;
  }

  /** Why notifications for these labels are held now, or undefined when they are not. */
  holds(labels: Record<string, string>, now: number): string | undefined {
    const by = this.silencing(labels, now);
    return by === undefined ? undefined : by.id === MAINTENANCE ? 'maintenance window' : `silenced (${by.id})`;
  }

  /**
   * The silence (or maintenance window, id `maintenance window`) that holds these labels now, with
   * when it ends; undefined when none does. What views show as an alert's `silencedBy`.
   */
  silencing(labels: Record<string, string>, now: number): SilencedBy | undefined {
    for (const [i, s] of this.config.silences.entries()) {
      if (s.startsAt <= now && now < s.endsAt && matches(s.matchers, labels)) return { id: `config-${i}`, endsAt: s.endsAt, comment: s.comment, createdBy: 'config' };
    }
    for (const s of this.api) {
      if (s.startsAt <= now && now < s.endsAt && this.testsOf(s).every(([name, test]) => test(labels[name] ?? ''))) return { id: s.id, endsAt: s.endsAt, comment: s.comment, createdBy: s.createdBy };
    }
    for (const window of this.config.maintenance) {
      if (!matches(window.matchers, labels)) continue;
      let cron = this.crons.get(window.schedule);
      if (!cron) this.crons.set(window.schedule, (cron = new Cron(window.schedule, { paused: true })));
      // previousRuns gives the starts before a time: a window is in force from its start's millisecond
      const start = cron.previousRuns(1, new Date(now + 1))[0];
      if (start && now < start.getTime() + window.durationMs) return { id: MAINTENANCE, endsAt: start.getTime() + window.durationMs, comment: window.schedule, createdBy: 'config' };
    }
    return undefined;
  }

  /** Compiled once per distinct matcher set (silences are few; the cache is dropped if it ever grows past that). */
  private testsOf(silence: Silence): Array<[string, LabelTest]> {
    const key = JSON.stringify(silence.matchers);
    let tests = this.compiled.get(key);
    if (!tests) {
      if (this.compiled.size >= 1000) this.compiled.clear();
      tests = Object.entries(silence.matchers).map(([name, value]) => [name, compileLabelMatcher(value)]);
      this.compiled.set(key, tests);
    }
    return tests;
  }

  private persist(): void {
    writeJsonAtomic(this.file, { version: 1, silences: this.api });
  }
}
