/**
 * avahealth's silences (config and POST /api/v1/silences) mirrored to each `alertmanager`
 * receiver through Alertmanager's v2 silences API, so Alertmanager's view stays true: a silenced
 * alert keeps being sent to it (it mutes it) instead of going quiet, which Alertmanager would take
 * for a resolve after the alert's endsAt, and then for a new firing when the silence is lifted.
 *
 * This module decides; what it tells Alertmanager leaves through the receiver's outbox like every
 * notification (persisted before it is sent, delivered in order with the pipeline's batches,
 * retried with backoff, at least once) and is applied by silences.ts and send.ts. Each pass (every
 * `resend_interval`, at most 5 s apart):
 *  - a silence the receiver's notes do not show made with its content is queued `ensure` (made
 *    once, found again by the marker in its comment), and every silence once per resend_interval
 *    (one expired by hand, or lost by Alertmanager, is made again); one the notes show made that is
 *    gone or changed is queued `expire`; nothing is queued twice;
 *  - then the alerts held by a silence the notes show made are queued (a `muted` batch: the
 *    pipeline's own notices, routed by the receiver's routes), when that set changed or a resend
 *    interval passed, with the ones it sent that ended while silenced (never told, so the pipeline
 *    has nothing to take back) resolved. So no alert is sent for a silence before it is there.
 * Maintenance windows are not mirrored (their alerts stop being sent, as before).
 */
import { createHash, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { z } from 'zod';
import type { Config } from '../../../config/load.js';
import type { Logger } from '../../../log.js';
import { readJsonFile } from '../../../state/atomic.js';
import { noticeSchema } from '../../persisted.js';
import { statePath } from '../../../state/map.js';
import type { Silence } from '../../silences.js';
import type { AlertNotice, MirroredSilence, SilenceOp } from '../../types.js';
import type { Outlet } from '../receiver.js';
import { routeTo } from '../route.js';
import type { ReceiverOf } from '../schemas.js';
import { noteKey, readNote } from './silences.js';

const MAX_PASS_MS = 5_000;
/** The receiver's note of the alerts last sent for a mirrored silence: kept across restarts, so one that ends while avahealth is away is still resolved there. */
const FED_NOTE = 'mirror fed';
const fedSchema = z.array(noticeSchema).max(10_000);

/** What the mirror reads: the silences, the pipeline's notices of the incidents a silence holds, and the receiver's outbox. */
export interface MirrorSources {
  silences(now: number): Silence[];
  /** The active incidents a silence holds now, as receivers would be told them, each with the silence's id and end. */
  held(now: number): Array<{ silence: string; until: number; notice: AlertNotice }>;
  /** Fingerprints of the incidents firing now that receivers were told of: the pipeline's to keep up (or end). */
  toldFiring(): ReadonlySet<string>;
  /** The receiver's outbox (the notifier may be replaced by a reload). */
  outlet(receiver: string): Outlet | undefined;
  stateDir: string;
}

type Receiver = ReceiverOf<'alertmanager'>;

/** Content hash of a silence as mirrored: a change of any of these makes a new Alertmanager silence. */
function hashOf(s: Silence): string {
  return createHash('sha256').update(JSON.stringify([s.matchers, s.startsAt, s.endsAt, s.comment, s.createdBy])).digest('hex').slice(0, 12);
}

function mirrored(s: Silence): MirroredSilence {
  return { id: s.id, hash: hashOf(s), matchers: s.matchers, startsAt: s.startsAt, endsAt: s.endsAt, createdBy: s.createdBy, comment: s.comment };
}

const opKey = (op: SilenceOp) => ('ensure' in op ? `ensure ${op.ensure.id} ${op.ensure.hash}` : 'expire' in op ? `expire ${op.expire.id} ${op.expire.hash}` : `adopt ${op.adopt.amId}`);

/** What an earlier version kept of the silences it made (`silence-mirror-<receiver>.json`): handed to the notes once. */
const legacyFileSchema = z.object({ made: z.array(z.string().max(256)).max(10_000) });

export class SilenceMirror {
  /** The firing alerts last sent for a mirrored silence, by fingerprint (undefined until read back from the notes). */
  private fed?: Map<string, AlertNotice>;
  private fedKey = '';
  private lastFed = 0;
  /** When every silence was last queued `ensure` (0: not since the start). */
  private ensuredAt = 0;
  /** Silence id → the Alertmanager id last logged as made. */
  private shown?: Map<string, string>;
  /** The legacy file, once its ids are queued: removed on the next pass, when that line is on disk. */
  private legacy?: { file: string; queued: boolean };
  private stopped = false;
  private timer?: NodeJS.Timeout;

  constructor(
    readonly receiver: Receiver,
    private readonly sources: MirrorSources,
    private readonly log: Logger,
  ) {
    const file = statePath.legacySilenceMirror(sources.stateDir, receiver.name);
    this.legacy = { file, queued: false };
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** A pass now (at the next turn of the event loop), then on the usual schedule: the pipeline changed an incident. */
  nudge(): void {
    if (this.stopped || this.timer === undefined) return;
    // nothing a silence holds, nothing fed to resolve: the change is none of the mirror's business
    if ((this.fed === undefined || this.fed.size === 0) && this.sources.silences(Date.now()).length === 0) return;
    clearTimeout(this.timer);
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      try {
        this.pass();
      } catch (err) {
        this.log.error({ receiver: this.receiver.name, error: (err as Error).message }, 'silence mirror pass failed; tried again on the next');
      }
      this.schedule(Math.min(this.receiver.settings.resendIntervalMs, MAX_PASS_MS));
    }, delayMs);
    this.timer.unref();
  }

  /** One pass: what is to be told is queued in the receiver's outbox, which sends and retries it. */
  pass(now = Date.now()): void {
    const outlet = this.sources.outlet(this.receiver.name);
    if (!outlet) return;
    this.takeOverLegacy(outlet, now);
    this.logChanges(outlet);
    this.syncSilences(outlet, now);
    this.feed(outlet, now);
  }

  private syncSilences(outlet: Outlet, now: number): void {
    const queued = new Set(outlet.queued().flatMap((item) => item.batch.silences ?? []).map(opKey));
    const every = now - this.ensuredAt >= this.receiver.settings.resendIntervalMs;
    const firstPass = this.ensuredAt === 0;
    const desired = this.sources.silences(now).map(mirrored);
    const ops: SilenceOp[] = [];
    const add = (op: SilenceOp) => {
      if (!queued.has(opKey(op))) ops.push(op);
    };
    for (const s of desired) {
      const note = readNote(outlet.notes, s.id);
      if (note && note.hash !== s.hash) add({ expire: { id: s.id, hash: note.hash } });
      const current = note?.hash === s.hash;
      // Made: checked again once per resend interval. Refused: tried again after a restart, or once it changes.
      if (!current || (note.refused ? firstPass : every)) add({ ensure: s });
    }
    const ids = new Set(desired.map((s) => s.id));
    for (const key of outlet.notes.keys()) {
      if (!key.startsWith(noteKey(''))) continue;
      const id = key.slice(noteKey('').length);
      const note = readNote(outlet.notes, id);
      if (note && !ids.has(id)) add({ expire: { id, hash: note.hash } });
    }
    if (every) this.ensuredAt = now;
    if (ops.length > 0) outlet.enqueue({ id: randomUUID(), target: '*', createdAt: now, alerts: [], silences: ops });
  }

  /** Sends the alerts the mirrored silences hold, when that set changed or a resend interval passed. */
  private feed(outlet: Outlet, now: number): void {
    const notices = new Map<string, AlertNotice>();
    for (const { silence, until, notice } of this.sources.held(now)) {
      if (readNote(outlet.notes, silence)?.amId === undefined) continue;
      if (routeTo(this.receiver, [notice]).length === 0) continue;
      // Never told, it is there only to be muted: its copy ends with the silence (send.ts), after which
      // the pipeline decides. Left up, a daemon away when the silence ends could not end it in time.
      notices.set(notice.fingerprint, notice.untold ? { ...notice, endsAt: new Date(until).toISOString() } : notice);
    }
    // Sent here while silenced and no longer held by a mirrored silence: ended here unless the pipeline told it and keeps
    // it up. One still firing but never told is held by something Alertmanager does not know (a maintenance window, a
    // root cause, a flap hold): left up, Alertmanager would page it once its copy of the silence ended.
    // What an earlier run sent is in the notes: it may have ended while avahealth was away.
    this.fed ??= readFed(outlet.notes.get(FED_NOTE));
    const told = this.sources.toldFiring();
    for (const [fingerprint, earlier] of this.fed) {
      if (!notices.has(fingerprint) && !told.has(fingerprint)) notices.set(fingerprint, { ...earlier, status: 'resolved', kind: 'resolved', endsAt: new Date(now).toISOString() });
    }
    const key = [...notices.values()].map((n) => `${n.fingerprint}:${n.status}${n.status === 'firing' ? `:${n.endsAt}` : ''}`).sort().join(',');
    // A change is queued at once; the same set again once a resend interval passed, unless the last one still waits (Alertmanager down).
    const due = key !== this.fedKey || (now - this.lastFed >= this.receiver.settings.resendIntervalMs && !outlet.queued().some((item) => item.batch.muted));
    this.fedKey = key;
    this.fed = new Map([...notices].filter(([, n]) => n.status === 'firing'));
    // noted before it is queued: the outbox sends nothing before the notes taken until then are on disk
    const fedText = this.fed.size > 0 ? JSON.stringify([...this.fed.values()]) : undefined;
    if (fedText !== outlet.notes.get(FED_NOTE)) void outlet.notes.update({ [FED_NOTE]: fedText });
    if (notices.size > 0 && due) {
      outlet.enqueue({ id: randomUUID(), target: '*', createdAt: now, alerts: [...notices.values()], muted: true });
      this.lastFed = now;
    }
  }

  /** Logs each silence once it is made at Alertmanager, and once it is expired there (the notes say so). */
  private logChanges(outlet: Outlet): void {
    const now = new Map<string, string>();
    for (const key of outlet.notes.keys()) {
      if (!key.startsWith(noteKey(''))) continue;
      const id = key.slice(noteKey('').length);
      const amId = readNote(outlet.notes, id)?.amId;
      if (amId) now.set(id, amId);
    }
    if (this.shown) {
      for (const [id, amId] of now) if (this.shown.get(id) !== amId) this.log.info({ receiver: this.receiver.name, silence: id, alertmanagerSilence: amId }, 'silence mirrored to Alertmanager');
      for (const [id, amId] of this.shown) if (!now.has(id)) this.log.info({ receiver: this.receiver.name, silence: id, alertmanagerSilence: amId }, 'silence expired at Alertmanager');
    }
    this.shown = now;
  }

  /**
   * The ids an earlier version kept in its own file are queued `adopt` once (each read back and put
   * in the notes under its avahealth silence, so one whose silence went meanwhile is expired), and
   * the file is removed on the next pass, once that line is on disk.
   */
  private takeOverLegacy(outlet: Outlet, now: number): void {
    const legacy = this.legacy;
    if (!legacy) return;
    const read = legacy.queued ? undefined : readJsonFile(legacy.file, legacyFileSchema);
    if (legacy.queued || (read?.status === 'ok' && read.value.made.length === 0)) {
      this.legacy = undefined;
      rmSync(legacy.file, { force: true });
      return;
    }
    if (read?.status !== 'ok') {
      this.legacy = undefined;
      return;
    }
    outlet.enqueue({ id: randomUUID(), target: '*', createdAt: now, alerts: [], silences: read.value.made.map((amId) => ({ adopt: { amId } })) });
    legacy.queued = true;
  }
}

/** One mirror per `alertmanager` receiver that mirrors silences (`mirror_silences`, on by default). */
export class SilenceMirrors {
  private readonly mirrors = new Map<string, SilenceMirror>();
  private started = false;

  constructor(
    private readonly sources: MirrorSources,
    private readonly log: Logger,
  ) {}

  /** A reload: a receiver kept as it was keeps its mirror; others are started or stopped. */
  setConfig(config: Config): void {
    const wanted = new Map<string, Receiver>();
    for (const r of config.alerts.receivers) if (r.kind === 'alertmanager' && r.settings.mirrorSilences) wanted.set(r.name, r);
    for (const [name, mirror] of this.mirrors) {
      if (JSON.stringify(wanted.get(name)) === JSON.stringify(mirror.receiver)) continue;
      mirror.stop();
      this.mirrors.delete(name);
    }
    for (const [name, receiver] of wanted) {
      if (this.mirrors.has(name)) continue;
      const mirror = new SilenceMirror(receiver, this.sources, this.log);
      this.mirrors.set(name, mirror);
      if (this.started) mirror.start();
    }
  }

  start(): void {
    this.started = true;
    for (const mirror of this.mirrors.values()) mirror.start();
  }

  /** The mirror of one receiver (a pass can be run by hand: tests). */
  mirror(receiver: string): SilenceMirror | undefined {
    return this.mirrors.get(receiver);
  }

  /** Every mirror passes now: an incident changed, and with it perhaps what a silence holds. */
  nudge(): void {
    for (const mirror of this.mirrors.values()) mirror.nudge();
  }

  stop(): void {
    this.started = false;
    for (const mirror of this.mirrors.values()) mirror.stop();
  }
}

/** The fed alerts an earlier run noted (a note that does not parse is nothing fed). */
function readFed(text: string | undefined): Map<string, AlertNotice> {
  if (!text) return new Map();
  try {
    const parsed = fedSchema.safeParse(JSON.parse(text));
    return parsed.success ? new Map(parsed.data.map((n) => [n.fingerprint, n])) : new Map();
  } catch {
    return new Map();
  }
}
