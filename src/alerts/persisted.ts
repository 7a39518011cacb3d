/**
 * The shapes of what the alerts layer keeps under state_dir, checked when read back: a file or
 * journal line that parses as JSON but is not one of these is set aside or skipped, never trusted.
 */
import { z } from 'zod';
import type { AlertName, AlertNotice, AlertState, NotificationBatch, SilenceOp } from './types.js';

const severity = z.enum(['warning', 'critical']);
const labels = z.record(z.string(), z.string());
const annotations = z.object({ summary: z.string(), description: z.string() });

export const alertStateSchema: z.ZodType<AlertState> = z
  .object({
  key: z.string(),
  fingerprint: z.string(),
  alertname: z.custom<AlertName>((v) => typeof v === 'string'),
  target: z.string(),
  labels,
  annotations,
  phase: z.enum(['pending', 'firing', 'resolved']),
  /** Absent in files written before flap holds were visible: the phase then. */
  state: z.enum(['pending', 'firing', 'flapping', 'resolved']).optional(),
  severity,
  consecutive: z.number(),
  okPolls: z.number(),
  activeSince: z.number(),
  firingSince: z.number().optional(),
  endedAt: z.number().optional(),
  until: z.number().optional(),
  notified: z.object({ phase: z.enum(['firing', 'resolved']), severity, at: z.number(), since: z.number().optional(), labels: labels.optional() }).optional(),
  acknowledged: z.object({ by: z.string().max(256), at: z.number(), severity }).optional(),
  awaitsOutcome: z.object({ since: z.number() }).optional(),
  })
  .transform((state) => ({ ...state, state: state.state ?? state.phase }));

export const alertStateFileSchema = z.object({
  alerts: z.array(alertStateSchema),
  flaps: z.record(z.string(), z.array(z.number())).optional(),
});

export const noticeSchema: z.ZodType<AlertNotice> = z.object({
  status: z.enum(['firing', 'resolved']),
  kind: z.enum(['firing', 'severity_changed', 'updated', 'reminder', 'resolved', 'test']),
  labels,
  annotations,
  startsAt: z.string(),
  endsAt: z.string(),
  fingerprint: z.string(),
  generatorURL: z.string(),
  key: z.string().optional(),
  previousLabels: labels.optional(),
  carried: z.record(z.string(), z.unknown()).optional(),
  untold: z.literal(true).optional(),
});

const mirroredSilenceSchema = z.object({
  id: z.string(),
  hash: z.string(),
  matchers: z.record(z.string(), z.string()),
  startsAt: z.number(),
  endsAt: z.number(),
  createdBy: z.string(),
  comment: z.string(),
});

const silenceOpSchema: z.ZodType<SilenceOp> = z.union([
  z.object({ ensure: mirroredSilenceSchema }),
  z.object({ expire: z.object({ id: z.string(), hash: z.string() }) }),
  z.object({ adopt: z.object({ amId: z.string() }) }),
]);

const batchSchema: z.ZodType<NotificationBatch> = z.object({
  id: z.string(),
  target: z.string(),
  createdAt: z.number(),
  alerts: z.array(noticeSchema),
  handover: z.boolean().optional(),
  resend: z.boolean().optional(),
  muted: z.boolean().optional(),
  silences: z.array(silenceOpSchema).optional(),
});

/** An incident a receiver was told fired and not yet told resolved: the last firing notice and when its batch was made. */
const openIncidentSchema = z.object({ at: z.number(), alert: noticeSchema });
export type OpenIncident = z.infer<typeof openIncidentSchema>;

const outboxItemSchema = z.object({
  batch: batchSchema,
  attempts: z.number(),
  nextAttemptAt: z.number(),
  lastError: z.string().optional(),
});

export const outboxOpSchema = z.union([
  z.object({ add: outboxItemSchema }),
  z.object({ done: z.string() }),
  /** The receiver's open incidents as of this line (written on compaction and on a journal's first start). */
  z.object({ open: z.array(openIncidentSchema) }),
  z.object({ retry: z.object({ id: z.string(), attempts: z.number(), nextAttemptAt: z.number(), lastError: z.string().optional() }) }),
]);
export type OutboxOp = z.infer<typeof outboxOpSchema>;
export type OutboxItem = z.infer<typeof outboxItemSchema>;
