/**
 * The `alerts.receivers[]` config schema, built from the receiver kinds: common routing keys plus
 * exactly one kind, whose slice, checks and secret resolution live in `<kind>/schema.ts`. A new
 * receiver kind is one line here (and its sender in ./index.ts).
 */
import { z } from 'zod';
import { matchers, report, targetName, type Matcher } from '../../config/primitives.js';
import alertmanager from './alertmanager/schema.js';
import discord from './discord/schema.js';
import email from './email/schema.js';
import pagerduty from './pagerduty/schema.js';
import slack from './slack/schema.js';
import telegram from './telegram/schema.js';
import webhook from './webhook/schema.js';
import type { Problem } from './primitives.js';

const KINDS = { webhook, slack, discord, pagerduty, alertmanager, telegram, email };

export type ReceiverKind = keyof typeof KINDS;
export const RECEIVER_KINDS = Object.keys(KINDS) as ReceiverKind[];

export const severity = z.enum(['warning', 'critical']);

/** The settings a kind's `send.ts` receives (after secret resolution). */
export type SettingsOf<K extends ReceiverKind> = ReturnType<(typeof KINDS)[K]['resolve']>['settings'];

interface ReceiverCommon {
  name: string;
  matchers: Matcher[];
  minSeverity: 'warning' | 'critical';
  /** URLs, keys and secrets: never logged or shown. */
  secrets: string[];
}
export type ReceiverOf<K extends ReceiverKind> = ReceiverCommon & { kind: K; settings: SettingsOf<K> };
export type ReceiverConfig = { [K in ReceiverKind]: ReceiverOf<K> }[ReceiverKind];

/** Set while a config is loaded for `avahealth check` (withReceiverSecretsOptional). */
let secretsOptional = false;

/**
 * Loads a config whose receivers need no secrets: `avahealth check` sends nothing. Their shapes are
 * checked as always, but a secret written and left empty (its environment variable unset) is no
 * error, and such a receiver is left out of the loaded config.
 */
export function withReceiverSecretsOptional<T>(load: () => T): T {
  secretsOptional = true;
  try {
    return load();
  } finally {
    secretsOptional = false;
  }
}

/** A secret field (it has a `_file` twin) written but empty, with no file given instead. */
function emptySecret(kind: ReceiverKind, field: string, settings: Record<string, unknown>): boolean {
  return `${field}_file` in KINDS[kind].slice.shape && settings[field] === '' && settings[`${field}_file`] === undefined;
}

/** The kind's problems, but for empty secrets while they are optional. */
function problemsOf(kind: ReceiverKind, settings: Record<string, unknown>): { problems: Problem[]; missingSecret: boolean } {
  const all = (KINDS[kind].check as (s: unknown) => Problem[])(settings);
  const problems = secretsOptional ? all.filter((p) => !emptySecret(kind, p.field, settings)) : all;
  return { problems, missingSecret: problems.length < all.length };
}

const slices = Object.fromEntries(RECEIVER_KINDS.map((kind) => [kind, KINDS[kind].slice.optional()])) as { [K in ReceiverKind]: z.ZodOptional<(typeof KINDS)[K]['slice']> };

const receiverEntry = z
  .strictObject({
    name: targetName.describe('Receiver name (routing, metrics, notify-test).'),
    matchers: matchers.optional().describe('Only alerts whose labels match.'),
    min_severity: severity.prefault('warning').describe('Only alerts at least this severe.'),
    ...slices,
  })
  .superRefine((r, ctx) => {
    const present = RECEIVER_KINDS.filter((k) => r[k] !== undefined);
    if (present.length !== 1) {
      report(ctx, [], `receiver "${r.name}" needs exactly one of ${RECEIVER_KINDS.join(', ')}${present.length > 1 ? ` (has ${present.join(', ')})` : ''}`);
      return;
    }
    const kind = present[0]!;
    const settings = r[kind] as Record<string, unknown>;
    for (const problem of problemsOf(kind, settings).problems) {
      // A missing or emptied field is reported at the field when it is written (naming an unset variable).
      report(ctx, settings[problem.field] !== undefined ? [kind, problem.field] : [kind], `receiver "${r.name}": ${problem.message}`);
    }
  });

type ReceiverEntry = z.output<typeof receiverEntry>;

/** Secret resolution: the settings its sender uses and what never to show. */
function resolved(r: ReceiverEntry): ReceiverConfig {
  const kind = RECEIVER_KINDS.find((k) => r[k] !== undefined)!;
  const { settings, secrets } = (KINDS[kind].resolve as (s: unknown) => { settings: never; secrets: string[] })(r[kind]);
  return { name: r.name, kind, matchers: r.matchers ?? [], minSeverity: r.min_severity, settings, secrets };
}

/** One receiver of `alerts.receivers[]`. */
export const receiverSchema = receiverEntry.transform(resolved);

/** `alerts.receivers`: one loaded for `check` without its secret (withReceiverSecretsOptional) is left out: it could not send, and check sends nothing. */
export const receiversSchema = z.array(receiverEntry).transform((list) =>
  list
    .filter((r) => {
      const kind = RECEIVER_KINDS.find((k) => r[k] !== undefined)!;
      return !(secretsOptional && problemsOf(kind, r[kind] as Record<string, unknown>).missingSecret);
    })
    .map(resolved),
);

/** The credential a receiver would send without TLS (`<kind>/schema.ts`'s `cleartext`), for `validate`'s warning. */
export function cleartextOf(receiver: ReceiverConfig): { field: string; what: string } | undefined {
  const check = KINDS[receiver.kind].cleartext as ((settings: unknown) => { field: string; what: string } | undefined) | undefined;
  return check?.(receiver.settings);
}
