/**
 * `metrics:`: which families /metrics exports, the way kube-state-metrics' metric allow and deny
 * lists choose them (regular expressions matched against the whole family name, in RE2 syntax:
 * linear time), and whether a passing check has its detail families. The defaults export
 * everything (docs/metrics.md says what each knob saves).
 */
import { createRequire } from 'node:module';
import { z } from 'zod';

type RE2 = typeof import('re2js').RE2JS;
let loaded: RE2 | undefined;
/** re2js is loaded with the first pattern: most configs have none. */
const re2 = (): RE2 => (loaded ??= (createRequire(import.meta.url)('re2js') as { RE2JS: RE2 }).RE2JS);

/** A test of a family name against the patterns (a full match of any of them). */
export function familyMatcher(patterns: readonly string[]): (name: string) => boolean {
  const compiled = patterns.map((p) => re2().compile(p));
  return (name) => compiled.some((p) => p.matches(name));
}

const familyPattern = z
  .string()
  .min(1)
  .max(512)
  .superRefine((pattern, ctx) => {
    try {
      re2().compile(pattern);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `invalid regular expression: ${(err as Error).message}` });
    }
  });

export const metricsSchema = z
  .strictObject({
    allow: z
      .array(familyPattern)
      .max(256)
      .prefault([])
      .describe('Families exported: regular expressions (RE2) each matched against a whole family name, e.g. "avahealth_node_.*". Empty: every family.'),
    deny: z.array(familyPattern).max(256).prefault([]).describe('Families not exported, even when allow names them, e.g. "avahealth_validator_observed_.*".'),
    check_details: z
      .enum(['all', 'failing'])
      .prefault('all')
      .describe('The per-check families of a passing check: all of them, or "failing": only avahealth_node_check_passing (the other per-check families for checks that fail or have not run).'),
  })
  .transform((m) => ({ allow: m.allow, deny: m.deny, checkDetails: m.check_details }));

export type MetricsSettings = z.output<typeof metricsSchema>;
