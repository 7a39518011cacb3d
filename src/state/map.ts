/**
 * The map of state_dir: every file and folder avahealth writes there, the module that writes it,
 * what it holds, and what it is to the fleet. Writers take their paths from here (`statePath`);
 * docs/architecture.md shows the table (`stateMapTable`, written by `npm run generate`), and a test
 * runs a daemon that writes all it can and fails on a file this map does not name.
 *
 * state_dir is a cache and a delivery log, not the truth. Each file is one of:
 *  - derived: lost or left behind, it is derived again from the sources (at most a bounded delay);
 *  - delivery: this replica's log of what it told receivers; it stays with the replica;
 *  - carried: facts a verdict rests on that the sources cannot give again; when a target moves to
 *    another shard, its entry travels to the new owner (the handover record), keyed by target;
 *  - local: this process's own bookkeeping, or what this replica's API was given; it stays.
 */
import { randomBytes } from 'node:crypto';
import { join, posix, sep } from 'node:path';

export type StateKind = 'derived' | 'delivery' | 'carried' | 'local';

export interface StateEntry {
  /** The path under state_dir; `<receiver>` is a receiver's name, `<file>` any path of this map, `<pid>` and `<time>` what they say. */
  readonly pattern: string;
  /** The module that writes it (from the repository's root). */
  readonly writer: string;
  /** The module whose memory it is, when the writer writes for another. */
  readonly for?: string;
  /** What it holds. */
  readonly holds: string;
  readonly kind: StateKind;
  /** Its entries are per target (the ledgers' `nodes`): a carried file is handed over target by target. */
  readonly perTarget?: true;
  /** What happens to it when a target moves to another shard. */
  readonly reshard: string;
}

export const STATE_MAP = {
  lock: {
    pattern: 'avahealth.lock',
    writer: 'src/state/lock.ts',
    holds: 'the pid, start time and boot id of the daemon that owns state_dir, and, once it listens, where its API answers (read by `avahealth check`)',
    kind: 'local',
    reshard: 'stays: one daemon per state_dir',
  },
  reserve: {
    pattern: '.avahealth-reserve',
    writer: 'src/state/reserve.ts',
    holds: 'zeros: space kept for the outbox journals when the disk fills',
    kind: 'local',
    reshard: 'stays',
  },
  alerts: {
    pattern: 'alerts.json',
    writer: 'src/alerts/persistence.ts',
    holds: 'the incident book (identity, labels, phase, startsAt, polls counted) with what receivers were last told of each (`notified`), resolves told as "outcome not known yet" until the outcome is told (`awaitsOutcome`), and the flap history',
    kind: 'delivery',
    reshard:
      "stays; a moved target's open incidents go to its new owner as alerts (labels, startsAt) with the handover record; the polls counted and the flap history start again there from the sources",
  },
  silences: {
    pattern: 'silences.json',
    writer: 'src/alerts/silences.ts',
    holds: 'the silences made through this replica\'s API (`POST /api/v1/silences`); config silences are not kept',
    kind: 'local',
    reshard: 'stays with the replica that received them (docs/scaling.md: lasting silences belong in the config, which every shard reads)',
  },
  outboxes: {
    pattern: 'outbox/',
    writer: 'src/alerts/outbox.ts',
    holds: 'one journal per receiver',
    kind: 'delivery',
    reshard: 'stays',
  },
  outbox: {
    pattern: 'outbox/<receiver>.jsonl',
    writer: 'src/alerts/outbox.ts',
    holds: 'the receiver\'s journal: notifications not yet delivered, their retries, and the incidents open at the receiver (what it was told fires and not yet told resolved)',
    kind: 'delivery',
    reshard: 'stays: what is queued is delivered by the replica that queued it; a moved incident is resolved or continued by its new owner',
  },
  receiverNotes: {
    pattern: 'receivers/',
    writer: 'src/alerts/receivers/notes.ts',
    holds: 'one file of notes per receiver that keeps some',
    kind: 'delivery',
    reshard: 'stays',
  },
  receiverNote: {
    pattern: 'receivers/<receiver>.json',
    writer: 'src/alerts/receivers/notes.ts',
    holds:
      'what a sender keeps beyond one delivery: the Telegram message id and the email Message-ID an incident was announced with, that later notices reply to; the Alertmanager silence made for each of avahealth\'s silences (or that Alertmanager refused it), and the alerts the silence mirror last sent there muted, so one that ends while avahealth is away is still resolved',
    kind: 'delivery',
    reshard: 'stays: a new owner of an incident starts its own thread; the silences stay with the replica that mirrors them',
  },
  legacySilenceMirror: {
    pattern: 'silence-mirror-<receiver>.json',
    writer: 'src/alerts/receivers/alertmanager/mirror.ts',
    holds: "written by earlier versions: the ids of the Alertmanager silences they made; read once at start, its ids queued in the receiver's outbox (to be put in its notes), then removed",
    kind: 'delivery',
    reshard: 'stays',
  },
  periods: {
    pattern: 'periods.json',
    writer: 'src/state/ledger.ts',
    for: 'src/probes/periods.ts',
    holds:
      "per own validator: the validation period followed, one that ended and awaits its outcome, the last outcomes (paid or not, and why)",
    kind: 'carried',
    perTarget: true,
    reshard:
      "the moved target's entry goes with it: a removed validator is no longer listed, so neither its last period's staking transaction nor the uptime seen before its end can be asked again (the period followed now is derived again from platform.getCurrentValidators)",
  },
  missedUpgrades: {
    pattern: 'missed-upgrades.json',
    writer: 'src/state/ledger.ts',
    for: 'src/probes/node.ts',
    holds: "per node: the upgrade deadline its futureupgrade check named last, kept past the deadline while the node's build does not know the upgrade",
    kind: 'carried',
    perTarget: true,
    reshard: "the moved target's entry goes with it: past the deadline the node's check passes again and no longer names it",
  },
  uptimeSettling: {
    pattern: 'uptime-settling.json',
    writer: 'src/state/ledger.ts',
    for: 'src/probes/validator.ts',
    holds: "per validator: the info.uptime readings while a restart's snapshot settles, and whether the last one was no answer (bootstrapping, or the node down)",
    kind: 'derived',
    perTarget: true,
    reshard: "left behind: the new owner watches the snapshot settle from its own readings (a verdict held at most model/uptime-snapshot.ts's SETTLE_MAX_SECONDS longer)",
  },
  publicIps: {
    pattern: 'public-ips.json',
    writer: 'src/state/ledger.ts',
    for: 'src/probes/validator.ts',
    holds: "per validator: the IP:port its info.getNodeIP answered last, and its last change, so a change while avahealth was stopped is told at its first poll",
    kind: 'carried',
    perTarget: true,
    reshard: "the moved target's entry goes with it: the node says only its IP now, never the one before",
  },
  temporary: {
    pattern: '.<file>.<pid>.<random>.tmp',
    writer: 'src/state/atomic.ts, src/state/lock.ts',
    holds: 'a file being written (a random name, created exclusively), renamed over `<file>` once it is on disk (left only by a crash mid-write; removed at the next start)',
    kind: 'local',
    reshard: 'stays',
  },
  setAside: {
    pattern: '<file>.corrupt-<time>',
    writer: 'src/state/atomic.ts',
    holds: 'a file that could not be read or had the wrong shape, moved out of the way for a person to look at; never read again',
    kind: 'local',
    reshard: 'stays',
  },
} as const satisfies Record<string, StateEntry>;

export type StateFileName = keyof typeof STATE_MAP;

/** The paths writers use. */
export const statePath = {
  lock: (stateDir: string) => join(stateDir, STATE_MAP.lock.pattern),
  reserve: (stateDir: string) => join(stateDir, STATE_MAP.reserve.pattern),
  alerts: (stateDir: string) => join(stateDir, STATE_MAP.alerts.pattern),
  silences: (stateDir: string) => join(stateDir, STATE_MAP.silences.pattern),
  outbox: (stateDir: string, receiver: string) => join(stateDir, 'outbox', `${receiver}.jsonl`),
  receiverNote: (stateDir: string, receiver: string) => join(stateDir, 'receivers', `${receiver}.json`),
  legacySilenceMirror: (stateDir: string, receiver: string) => join(stateDir, `silence-mirror-${encodeURIComponent(receiver)}.json`),
  periods: (stateDir: string) => join(stateDir, STATE_MAP.periods.pattern),
  missedUpgrades: (stateDir: string) => join(stateDir, STATE_MAP.missedUpgrades.pattern),
  uptimeSettling: (stateDir: string) => join(stateDir, STATE_MAP.uptimeSettling.pattern),
  publicIps: (stateDir: string) => join(stateDir, STATE_MAP.publicIps.pattern),
  /** The temporary file a write of `path` goes through (in the same folder, so the rename is atomic; a name no one can guess ahead). */
  temporary: (path: string, pid = process.pid) => join(dirOf(path), `.${baseOf(path)}.${pid}.${randomBytes(8).toString('hex')}.tmp`),
  /** Where a bad file is moved (`at`: when). */
  setAside: (path: string, at = new Date()) => `${path}.corrupt-${at.toISOString().replace(/[:.]/g, '-')}`,
} satisfies { [name in StateFileName]?: (...args: never[]) => string };

function dirOf(path: string): string {
  const at = Math.max(path.lastIndexOf('/'), path.lastIndexOf(sep));
  return at < 0 ? '.' : path.slice(0, at) || '/';
}

function baseOf(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf(sep)) + 1);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const PLACEHOLDERS: Record<string, string> = { '<receiver>': '[^/]+', '<pid>': '[0-9]+', '<random>': '[0-9a-f]+', '<time>': '[0-9TZ-]+' };

/** A pattern as a regular expression over a path relative to state_dir (`/` separated); `<file>` is left to `stateEntryOf`. */
function patternRegex(pattern: string): RegExp {
  const source = pattern
    .split(/(<[a-z]+>)/)
    .map((part) => PLACEHOLDERS[part] ?? (part === '<file>' ? '(.+)' : escape(part)))
    .join('');
  return new RegExp(`^${source}$`);
}

const COMPILED = Object.entries(STATE_MAP).map(([name, entry]) => ({ name: name as StateFileName, regex: patternRegex(entry.pattern) }));
/** `.<file>.<pid>.<random>.tmp` sits beside `<file>`, in its folder. */
const TEMPORARY = /^((?:[^/]+\/)*)\.(.+)\.[0-9]+\.[0-9a-f]+\.tmp$/;

/**
 * Which entry of the map a path under state_dir (relative, `/` or the platform's separator; a
 * folder ends in `/`) belongs to, or undefined when the map does not name it. A temporary or
 * set-aside file counts only when the file it stands for is in the map.
 */
export function stateEntryOf(relative: string): StateFileName | undefined {
  const path = relative.split(sep).join(posix.sep);
  const temporary = TEMPORARY.exec(path);
  if (temporary && stateEntryOf(temporary[1]! + temporary[2]!) !== undefined) return 'temporary';
  for (const { name, regex } of COMPILED) {
    if (name === 'temporary') continue;
    const m = regex.exec(path);
    if (!m || (name === 'setAside' && stateEntryOf(m[1]!) === undefined)) continue;
    return name;
  }
  return undefined;
}

const KIND_TEXT: Record<StateKind, string> = {
  derived: 'derived again',
  delivery: 'delivery log',
  carried: '**carried**',
  local: 'local',
};

/** The map as a Markdown table (docs/architecture.md). */
export function stateMapTable(): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const code = (modules: string) => modules.split(', ').map((m) => `\`${m}\``).join(', ');
  const rows = Object.values(STATE_MAP).map(
    (e: StateEntry) => `| \`${e.pattern}\` | ${code(e.writer)}${e.for ? ` for ${code(e.for)}` : ''} | ${cell(e.holds)} | ${KIND_TEXT[e.kind]} | ${cell(e.reshard)} |`,
  );
  return ['| path under `state_dir` | written by | holds | kind | at a reshard |', '|---|---|---|---|---|', ...rows].join('\n');
}
