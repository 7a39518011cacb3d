/** `alerts:`: rule tuning, silences, maintenance windows and receivers. */
import { z } from 'zod';
import { duration, isCronPattern, matchers, report, secretField, secretValue } from '../primitives.js';
import { ruleTuningSchema } from '../../alerts/rules/index.js';
import { receiversSchema, severity } from '../../alerts/receivers/schemas.js';

export { ALERT_NAMES, type AlertName, type RuleTunings as RuleTuning } from '../../alerts/rules/index.js';

/** The keys every rule takes; each rule module adds its own (src/alerts/rules/<AlertName>.ts). */
const ruleSettings = {
  disabled: z.boolean().optional(),
  for_polls: z.number().int().min(1).max(1000).optional().describe('Consecutive polls the condition must hold before firing.'),
  for: duration().optional().describe('And for at least this long.'),
  severity: severity.optional().describe('Starting severity.'),
  critical_after: duration().optional().describe('Escalate to critical after firing this long.'),
};
const ruleMap = ruleTuningSchema(ruleSettings);

const dateTime = z.string().refine((t) => !Number.isNaN(Date.parse(t)), 'must be a date-time such as 2026-12-01T00:00:00Z');
const silence = z
  .strictObject({ matchers, ends_at: dateTime, starts_at: dateTime.optional(), comment: z.string().prefault('') })
  .transform((s) => ({ matchers: s.matchers, startsAt: s.starts_at ? Date.parse(s.starts_at) : 0, endsAt: Date.parse(s.ends_at), comment: s.comment }));
const maintenance = z
  .strictObject({ matchers, schedule: z.string().refine(isCronPattern, 'must be a cron pattern'), duration: duration({ ms: 1000, text: '1s' }), comment: z.string().prefault('') })
  .transform((m) => ({ matchers: m.matchers, schedule: m.schedule, durationMs: m.duration, comment: m.comment }));

export const alertsSchema = z
  .strictObject({
    for_polls: z.number().int().min(1).max(1000).prefault(2).describe('Default consecutive polls before firing.'),
    resolve_polls: z.number().int().min(1).max(1000).prefault(3).describe('Consecutive good polls before a firing alert resolves (a check that fails every other health period stays one incident).'),
    repeat_interval: duration().prefault('4h').describe('Remind about firing alerts this often (0 = never).'),
    bootstrap_grace: duration().prefault('30m').describe('How long a node may be not ready before AvalancheNodeNotReady fires; chain checks do not page meanwhile.'),
    flap_threshold: z.number().int().min(2).prefault(4).describe('An alert that changes state more often than this within flap_window is flapping: it notifies again once settled.'),
    flap_window: duration().prefault('30m').describe('A flapping alert notifies again once it has been stable this long.'),
    flap_sustained_polls: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .prefault(10)
      .describe('A failure held this many polls in a row pages even while its alert is flapping (so does one that is critical): damping never hides a sustained outage.'),
    rules: ruleMap.prefault({}).describe('Tuning of the built-in rules.'),
    targets: z.record(z.string(), z.strictObject({ rules: ruleMap })).prefault({}).describe('Per-target tuning: target name → rules.'),
    silences: z.array(silence).prefault([]),
    maintenance: z.array(maintenance).prefault([]).describe('Recurring windows (cron start + duration) in which matching alerts do not notify.'),
    receivers: receiversSchema.prefault([]),
    paging: z
      .enum(['receivers', 'prometheus'])
      .prefault('receivers')
      .describe(
        "Who pages on-call: `receivers` (avahealth's own; a start without one that takes critical alerts is warned of, and the status page says so) or `prometheus` (the shipped Prometheus rules, deploy/prometheus, through Alertmanager; receivers are then optional).",
      ),
    ...secretField('handover_key'),
  })
  .superRefine((alerts, ctx) => {
    const key = secretValue(alerts, 'handover_key')?.trim();
    if (key && key.length < 16) report(ctx, [alerts.handover_key ? 'handover_key' : 'handover_key_file'], 'handover_key must be at least 16 characters (e.g. `openssl rand -hex 32`): the shards sign what they hand over with it');
    const names = new Set<string>();
    alerts.receivers.forEach((r, i) => {
      if (names.has(r.name)) report(ctx, ['receivers', i, 'name'], `duplicate receiver name "${r.name}"`);
      names.add(r.name);
    });
  })
  .transform((a) => ({
    forPolls: a.for_polls,
    resolvePolls: a.resolve_polls,
    repeatIntervalMs: a.repeat_interval,
    bootstrapGraceMs: a.bootstrap_grace,
    flapThreshold: a.flap_threshold,
    flapWindowMs: a.flap_window,
    flapSustainedPolls: a.flap_sustained_polls,
    rules: a.rules,
    targetRules: Object.fromEntries(Object.entries(a.targets).map(([name, t]) => [name, t.rules])),
    silences: a.silences,
    maintenance: a.maintenance,
    receivers: a.receivers,
    paging: a.paging,
    /** The fleet's shared key: what a shard hands over through Alertmanager is signed with it, and only what it signed is adopted. */
    ...(secretValue(a, 'handover_key')?.trim() ? { handoverKey: secretValue(a, 'handover_key')!.trim() } : {}),
  }));

export type AlertsConfig = z.output<typeof alertsSchema>;
