/**
 * avahealth's silences (config and POST /api/v1/silences) mirrored to each `alertmanager`
 * receiver through Alertmanager's v2 silences API, so Alertmanager's view stays true: a silenced
 * alert keeps being sent to it (it mutes it) instead of going quiet, which Alertmanager would take
 * for a resolve after the alert's endsAt, and then for a new firing when the silence is lifted.
 *
 * Each pass (every `resend_interval`, at most 5 s apart) brings Alertmanager's silences to
 * avahealth's: a new or changed silence is POSTed to /api/v2/silences with its matchers, startsAt
 * and endsAt; a removed or changed one is expired with DELETE /api/v2/silence/{id}. The silences
 * it made carry a marker in their comment (this avahealth's external URL, the silence's id and a
 * hash of its content) and their ids are kept in state_dir, so after a restart or a reload it reads
 * them back (GET /api/v2/silence/{id}) and repairs what changed meanwhile, never making one twice. Then the alerts a mirrored silence
 * holds are sent to /api/v2/alerts (firing, or resolved when the problem ended under the silence),
 * and the ones it sent that ended while silenced (never told, so the engine has nothing to take
 * back) are resolved there. A failed pass logs once and is tried again by the next; nothing waits
 * for Alertmanager. Maintenance windows are not mirrored (their alerts stop being sent, as before).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Config } from '../../../config/load.js';
import { readJsonFile, writeJsonAtomic } from '../../../state/atomic.js';
import { statePath } from '../../../state/map.js';
import type { Logger } from '../../../log.js';
import type { HttpClient } from '../../../transport/client.js';
import { snippet } from '../../../util/text.js';
import { routeTo } from '../route.js';
import type { Silence, SilencedBy } from '../../silences.js';
import { ZERO_TIME, type AlertNotice, type AlertState } from '../../types.js';
import type { ReceiverOf } from '../schemas.js';
import { alertmanagerPayload } from './send.js';

const MAX_PASS_MS = 5_000;
const TIMEOUT_MS = 10_000;
const MARKER = /\(avahealth (\S+) silence (\S+) ([0-9a-f]{12})\)$/;

/** What the mirror reads from the alert core: the silences, which one holds an alert, the alert states. */
export interface MirrorSources {
  silences(now: number): Silence[];
  silencing(labels: Record<string, string>, now: number): SilencedBy | undefined;
  alerts(): AlertState[];
  externalUrl(): string;
  /** Where the ids of the Alertmanager silences this daemon made are kept (`state_dir`). */
  stateDir: string;
}

const madeFileSchema = z.object({ made: z.array(z.string()) });

type Receiver = ReceiverOf<'alertmanager'>;

class Refused extends Error {}

/** Content hash of a silence as mirrored: a change of any of these makes a new Alertmanager silence. */
function hashOf(s: Silence): string {
  return createHash('sha256').update(JSON.stringify([s.matchers, s.startsAt, s.endsAt, s.comment, s.createdBy])).digest('hex').slice(0, 12);
}

/** Alertmanager's matchers: `~regex` is a regex matcher (both are anchored RE2), anything else equality. */
export function amMatchers(matchers: Record<string, string>) {
  return Object.entries(matchers).map(([name, value]) =>
    value.startsWith('~') ? { name, value: value.slice(1), isRegex: true, isEqual: true } : { name, value, isRegex: false, isEqual: true },
  );
}

/** The alert as the receiver's outbox would send it. */
function noticeOf(state: AlertState, externalUrl: string, now: number): AlertNotice {
  const resolved = state.phase === 'resolved';
  const since = (state.notified?.phase === 'firing' ? state.notified.since : undefined) ?? state.firingSince ?? state.activeSince;
  return {
    status: resolved ? 'resolved' : 'firing',
    kind: resolved ? 'resolved' : 'firing',
    labels: { ...state.labels, severity: state.severity },
    annotations: { ...state.annotations },
    startsAt: new Date(since).toISOString(),
    endsAt: resolved ? new Date(state.endedAt ?? now).toISOString() : ZERO_TIME,
    fingerprint: state.fingerprint,
    generatorURL: `${externalUrl}/targets/${encodeURIComponent(state.target)}`,
  };
}

export class SilenceMirror {
  /** avahealth silence id → the Alertmanager silence that mirrors it, with the content hash it was made from. */
  private readonly mirrored = new Map<string, { amId: string; hash: string }>();
  /** Silences Alertmanager refused (4xx), by id and hash: not tried again until they change. */
  private readonly refused = new Set<string>();
  /** Whether `mirrored` is what Alertmanager has (read since the start, or since a failed pass). */
  private known = false;
  private lastRead = 0;
  /** The firing alerts last sent for a mirrored silence, by fingerprint. */
  private fed = new Map<string, AlertNotice>();
  private fedKey = '';
  private lastFed = 0;
  private failing = false;
  private stopped = false;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  /**
   * The Alertmanager silences this daemon made and has not expired, kept in state_dir: after a
   * restart it finds them again and expires those whose avahealth silence went meanwhile; it never
   * touches a silence it did not make (another replica's, or one made in Alertmanager).
   */
  private readonly made: Set<string>;
  private readonly file: string;

  constructor(
    readonly receiver: Receiver,
    private readonly http: HttpClient,
    private readonly sources: MirrorSources,
    private readonly log: Logger,
  ) {
    this.file = statePath.silenceMirror(sources.stateDir, receiver.name);
    const read = readJsonFile(this.file, madeFileSchema);
    this.made = new Set(read.status === 'ok' ? read.value.made : []);
  }

  private remember(amId: string, made: boolean): void {
    if (made === this.made.has(amId)) return;
    if (made) this.made.add(amId);
    else this.made.delete(amId);
    writeJsonAtomic(this.file, { version: 1, made: [...this.made] });
  }

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pass().finally(() => {
        this.running = undefined;
        this.schedule(Math.min(this.receiver.settings.resendIntervalMs, MAX_PASS_MS));
      });
    }, delayMs);
    this.timer.unref();
  }

  /** One pass; never throws: what failed is tried again by the next. */
  async pass(now = Date.now()): Promise<void> {
    try {
      await this.syncSilences(now);
      await this.feed(now);
      if (this.failing) this.log.info({ receiver: this.receiver.name }, 'silences mirrored to Alertmanager again');
      this.failing = false;
    } catch (err) {
      this.known = false;
      if (!this.failing) this.log.warn({ receiver: this.receiver.name, error: err instanceof Error ? err.message : String(err) }, 'cannot mirror silences to Alertmanager; retrying');
      this.failing = true;
    }
  }

  private async syncSilences(now: number): Promise<void> {
    if (!this.known || now - this.lastRead >= this.receiver.settings.resendIntervalMs) await this.read(now);
    const desired = new Map(this.sources.silences(now).map((s) => [s.id, s]));
    for (const [id, mirror] of this.mirrored) {
      const want = desired.get(id);
      if (want && hashOf(want) === mirror.hash) continue;
      await this.call('DELETE', `/api/v2/silence/${encodeURIComponent(mirror.amId)}`);
      this.mirrored.delete(id);
      this.remember(mirror.amId, false);
      this.log.info({ receiver: this.receiver.name, silence: id, alertmanagerSilence: mirror.amId }, 'silence expired at Alertmanager');
    }
    for (const [id, silence] of desired) {
      const hash = hashOf(silence);
      if (this.mirrored.has(id) || this.refused.has(`${id} ${hash}`)) continue;
      try {
        const amId = await this.create(silence, hash);
        this.remember(amId, true);
        this.mirrored.set(id, { amId, hash });
        this.log.info({ receiver: this.receiver.name, silence: id, alertmanagerSilence: amId }, 'silence mirrored to Alertmanager');
      } catch (err) {
        if (!(err instanceof Refused)) throw err;
        this.refused.add(`${id} ${hash}`);
        this.log.error({ receiver: this.receiver.name, silence: id, matchers: silence.matchers, error: err.message }, 'Alertmanager refused the silence; its alerts are not sent to it while the silence lasts');
      }
    }
  }

  /**
   * What Alertmanager has of the silences this daemon made (GET /api/v2/silence/{id} each: no list
   * of everyone's silences is read). One gone, expired (by hand, or Alertmanager lost its storage)
   * or not ours is forgotten, so it is made again while avahealth's lasts; a duplicate is expired.
   */
  private async read(now: number): Promise<void> {
    this.mirrored.clear();
    for (const amId of [...this.made]) {
      let item: { comment?: unknown; status?: { state?: unknown } } | undefined;
      try {
        item = JSON.parse(await this.call('GET', `/api/v2/silence/${encodeURIComponent(amId)}`)) as typeof item;
      } catch (err) {
        if (!(err instanceof Refused)) throw err;
      }
      const marker = typeof item?.comment === 'string' && item.status?.state !== 'expired' ? MARKER.exec(item.comment) : null;
      if (!marker) {
        this.remember(amId, false);
        continue;
      }
      const [, , id, hash] = marker as unknown as [string, string, string, string];
      if (this.mirrored.has(id)) {
        await this.call('DELETE', `/api/v2/silence/${encodeURIComponent(amId)}`);
        this.remember(amId, false);
      } else this.mirrored.set(id, { amId, hash });
    }
    this.known = true;
    this.lastRead = now;
  }

  private async create(s: Silence, hash: string): Promise<string> {
    const body = {
      matchers: amMatchers(s.matchers),
      startsAt: new Date(s.startsAt).toISOString(),
      endsAt: new Date(s.endsAt).toISOString(),
      createdBy: s.createdBy || 'avahealth',
      comment: `${s.comment || 'silenced in avahealth'} (avahealth ${this.sources.externalUrl()} silence ${s.id} ${hash})`,
    };
    const answer = JSON.parse(await this.call('POST', '/api/v2/silences', JSON.stringify(body))) as { silenceID?: unknown };
    if (typeof answer?.silenceID !== 'string') throw new Error('POST /api/v2/silences answered no silenceID');
    return answer.silenceID;
  }

  /** Sends the alerts the mirrored silences hold, when that set changed or a resend interval passed. */
  private async feed(now: number): Promise<void> {
    const externalUrl = this.sources.externalUrl();
    const states = this.sources.alerts();
    const notices = new Map<string, AlertNotice>();
    for (const state of states) {
      const active = state.phase === 'firing' || (state.phase === 'resolved' && state.notified?.phase === 'firing');
      if (!active) continue;
      const by = this.sources.silencing({ ...state.labels, severity: state.severity }, now);
      if (!by || !this.mirrored.has(by.id)) continue;
      const notice = noticeOf(state, externalUrl, now);
      if (routeTo(this.receiver, [notice]).length > 0) notices.set(state.fingerprint, notice);
    }
    // Sent here and over while silenced, never told by the engine: resolved here (one still firing is the engine's again).
    const firing = new Set(states.filter((s) => s.phase === 'firing').map((s) => s.fingerprint));
    for (const [fingerprint, earlier] of this.fed) {
      if (!notices.has(fingerprint) && !firing.has(fingerprint)) notices.set(fingerprint, { ...earlier, status: 'resolved', kind: 'resolved', endsAt: new Date(now).toISOString() });
    }
    const key = [...notices.values()].map((n) => `${n.fingerprint}:${n.status}`).sort().join(',');
    if (notices.size > 0 && (key !== this.fedKey || now - this.lastFed >= this.receiver.settings.resendIntervalMs)) {
      const batch = { id: 'silence-mirror', target: '*', createdAt: now, alerts: [...notices.values()] };
      await this.call('POST', '/api/v2/alerts', JSON.stringify(alertmanagerPayload(batch, now, this.receiver.settings.resendIntervalMs)));
      this.lastFed = now;
    }
    this.fedKey = key;
    this.fed = new Map([...notices].filter(([fingerprint, n]) => n.status === 'firing' && firing.has(fingerprint)));
  }

  /** One request; the body of a 2xx. A 4xx is Refused (not worth repeating), anything else an Error. */
  private async call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: string): Promise<string> {
    const response = await this.http.request({
      url: `${this.receiver.settings.url}${path}`,
      method,
      ...(body !== undefined ? { body, headers: { 'content-type': 'application/json' } } : {}),
      timeoutMs: TIMEOUT_MS,
    });
    if (response.status >= 200 && response.status < 300) return response.body;
    // Expiring a silence that is gone or already expired is done.
    if (method === 'DELETE' && (response.status === 404 || /expired|not found/i.test(response.body))) return '';
    const message = `${method} ${path}: HTTP ${response.status}: ${snippet(response.body)}`;
    throw response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429 ? new Refused(message) : new Error(message);
  }
}

/** One mirror per `alertmanager` receiver that mirrors silences (`mirror_silences`, on by default). */
export class SilenceMirrors {
  private readonly mirrors = new Map<string, SilenceMirror>();
  private started = false;

  constructor(
    private readonly http: HttpClient,
    private readonly sources: MirrorSources,
    private readonly log: Logger,
  ) {}

  /** A reload: a receiver kept as it was keeps its mirror; others are started or stopped. */
  setConfig(config: Config): void {
    const wanted = new Map<string, Receiver>();
    for (const r of config.alerts.receivers) if (r.kind === 'alertmanager' && r.settings.mirrorSilences) wanted.set(r.name, r);
    for (const [name, mirror] of this.mirrors) {
      if (JSON.stringify(wanted.get(name)) === JSON.stringify(mirror.receiver)) continue;
      void mirror.stop();
      this.mirrors.delete(name);
    }
    for (const [name, receiver] of wanted) {
      if (this.mirrors.has(name)) continue;
      const mirror = new SilenceMirror(receiver, this.http, this.sources, this.log);
      this.mirrors.set(name, mirror);
      if (this.started) mirror.start();
    }
  }

  start(): void {
    this.started = true;
    for (const mirror of this.mirrors.values()) mirror.start();
  }

  async stop(): Promise<void> {
    this.started = false;
    await Promise.all([...this.mirrors.values()].map((m) => m.stop()));
  }
}
