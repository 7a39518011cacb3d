/**
 * Weeks no one wrote by hand (`npm run bench:trust -- --seed N`): a week of a fleet built at random
 * from the event vocabulary of bench/trust/week.txt, deterministic per seed (a seeded PRNG), with its
 * ground truth derived from the documented semantics (docs/alerting.md, docs/validators.md,
 * docs/scaling.md) and the simulator's documented behaviour (docs/validators.md, "Try it"), never
 * from the daemon's code.
 *
 * A week is stories placed on a timeline: each story is what happens to one node (or a hosted API)
 * from a problem's onset to its end, with the truth of each event; the skeleton around them changes
 * the shard count both ways, kills every daemon at random moments, dips the whole network once and
 * samples the surfaces. Stories overlap on one node where real weeks do (disk low while cut off or
 * unreachable, an upgrade due while cut off), a dip comes while incidents are open, silences end
 * over live problems, and a node's outages flap before one turns real.
 *
 * Only events whose outcome the documents decide are drawn. What the truth rests on, story by story:
 * - every problem is one incident paging once (docs/alerting.md, "One page per problem"); the alerts
 *   of the same problem are its `also=` symptoms;
 * - an unreachable node pages once, its checks frozen: a condition that starts behind it pages when
 *   it answers again ("Noise control");
 * - a silence holds what starts under it (quiet: not healthy, nothing paged); when it ends or is
 *   removed over a live problem, the problem pages then ("Silences");
 * - damping: at most four counted changes per alert before a failure that then pages only once it
 *   held `flap_sustained_polls` polls ("Flapping"); changes under a silence do not count; so a node
 *   flaps at most twice before its outage turns real and stays (its held resolve would come only
 *   after `flap_window`);
 * - a network-wide dip below 80 % of the stake connected is `scope="network"` for every validator:
 *   a notice, never a page (docs/validators.md, "scope"); a validator's own incident open before it
 *   stays one incident (a scope change is an update), and a node's own failing checks page inside it;
 *   the dip is short (the simulator's uptime clock runs an hour a second: a long one would lower
 *   uptimes for good) and once a week (each dip changes every validator's reward alert twice);
 * - the baseline observers (the first three validators in config order) keep their view of the
 *   network: no outage, transport failure or lie of theirs;
 * - a validator the witnesses see apart is not split by a kill of the daemons: its finding waits a
 *   baseline read after they saw it apart, and a start waits for the first baseline ("The scope is
 *   decided before the first notification"), longer than a short episode leaves on either side;
 * - inside the ingress grace (10 minutes from a node's start, or a restart with
 *   `ingressGraceSeconds`) a closed staking port is paged from the witnesses that are not
 *   validators, so one RPC node of the validator's shard stays a witness meanwhile (all of them in a
 *   restart's grace);
 * - a period's end (a node line's validationEndsIn) is paid at ≥ 50 % rewarding stake, unpaid below
 *   (src/sim/periods.ts plays AvalancheGo's vote): an unpaid one pages RewardMissed, open for a day.
 */
import { createHash } from 'node:crypto';
import { prng } from '../../src/sim/ids.js';
import { parseScript } from './script.js';

/** What a generated week holds at least (docs/alerting.md, "How we measure trust"). */
export const GENERATED_MIN = { incidents: 20, nodes: 12 } as const;
/** The last event's time, seconds: with the start, the samples' `check` runs and the drain, under 10 minutes. */
export const GENERATED_END_S = 345;

const OBSERVERS = 3;
const HEALTHY_L1 = 8_780_477_952;
const LOW_L1 = 309_657_600; // 7 days at 512 nAVAX/s
const CRITICAL_L1 = 88_473_600; // 2 days
const NOT_THE_NODE_S = 4;

interface Ev {
  at: number;
  text: string;
  truth: string;
  /** Order among events of the same second. */
  seq: number;
}

interface Node {
  name: string;
  validator: boolean;
  observer: boolean;
  l1: boolean;
  autoRenewing: boolean;
  /** The period this node's line ends (seconds), and whether it is paid. */
  periodEnd?: { at: number; paid: boolean };
  /** Reserved intervals [from, to] (one story at a time). */
  busy: Array<[number, number]>;
  /** Closed episodes per family of alerts (flap damping: at most four changes). */
  episodes: Map<string, number>;
  /** Past this time the node stays as it is (an outage turned real, a missed reward). */
  frozenFrom?: number;
}

interface Window {
  from: number;
  to: number;
}

class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = prng(0x9e3779b9 ^ Math.imul(seed, 2654435761));
  }
  float(): number {
    return this.next();
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }
}

const overlaps = (a: Window, b: Window) => a.from <= b.to && b.from <= a.to;

/** The shard a target belongs to among `count` (docs/scaling.md: sha256 of its name, its first four bytes, mod N). */
export function shardOf(name: string, count: number): number {
  return createHash('sha256').update(name).digest().readUInt32BE(0) % count;
}

class Week {
  readonly rng: Rng;
  readonly nodes: Node[] = [];
  private readonly events: Ev[] = [];
  private seq = 0;
  private ids = new Map<string, number>();
  incidents = 0;
  /** Nodes with a story, and those with an incident. */
  readonly used = new Set<string>();
  readonly paged = new Set<string>();
  /** What the week shows (every week shows COVERAGE). */
  readonly features = new Set<string>();
  // the skeleton
  readonly reshards: number[] = [];
  /** The shard count from each reshard on. */
  readonly counts: number[] = [];
  readonly down: Window[] = [];
  dip?: Window & { percent: number };
  readonly silenced: Window[] = [];
  /** Port stories inside an ingress grace: the RPC nodes stay witnesses (healthy but for their disk). */
  readonly witnessed: Window[] = [];
  /**
   * When the week's upgrade stories schedule their upgrades (week seconds). AvalancheGo's upgrades
   * activate in the order releases schedule them, and a build that knows one knows every earlier one
   * (the simulator refuses anything else): the missed upgrade, days before any other, is scheduled
   * before the week's one far upgrade, whose node's build would otherwise know a later one.
   */
  missedUpgradeAt?: number;
  farUpgradeAt?: number;
  /** Stories whose validator alerts must stay `scope="self"` (no dip over them). */
  readonly selfOnly: Window[] = [];
  /** Changes at a hosted API (one story at a time per API). */
  readonly services = new Map<string, Window[]>([['data-api', []], ['metrics-api', []]]);

  constructor(readonly seed: number, attempt: number) {
    this.rng = new Rng(seed * 64 + attempt);
  }

  /** The shard count at `at`. */
  countAt(at: number): number {
    let count = 1;
    this.reshards.forEach((t, i) => {
      if (t <= at) count = this.counts[i]!;
    });
    return count;
  }

  /** Whether the node changes shard at a reshard inside (from, to). */
  moves(name: string, from: number, to: number): boolean {
    return this.reshards.some((t, i) => t > from && t < to && shardOf(name, this.countAt(t - 1)) !== shardOf(name, this.counts[i]!));
  }

  /** Whether two nodes are polled by the same shard all along `win` (in every layout it spans). */
  sameShard(a: string, b: string, win: Window): boolean {
    const counts = [this.countAt(win.from), ...this.reshards.flatMap((t, i) => (t > win.from && t <= win.to ? [this.counts[i]!] : []))];
    return counts.every((count) => shardOf(a, count) === shardOf(b, count));
  }

  id(kind: string): string {
    const n = (this.ids.get(kind) ?? 0) + 1;
    this.ids.set(kind, n);
    return `${kind}${n}`;
  }

  add(at: number, text: string, truth = 'none'): void {
    this.events.push({ at: Math.round(at), text, truth, seq: this.seq++ });
    for (const verb of truth.split(';').map((t) => t.trim())) {
      if (!verb.startsWith('open ')) continue;
      this.incidents++;
      const target = / target=(\S+)/.exec(verb)?.[1];
      if (target && this.nodes.some((n) => n.name === target)) this.paged.add(target);
    }
  }

  isDown(at: number): boolean {
    return this.down.some((w) => at >= w.from - 1 && at <= w.to);
  }

  /** Whether the daemons are stopped or starting at `at` (a call to their API would wait for them). */
  restarting(at: number): boolean {
    return this.isDown(at) || this.down.some((w) => at >= w.to && at <= w.to + 8) || this.reshards.some((t) => at >= t - 2 && at <= t + 15);
  }

  near(at: number, times: number[], margin: number): boolean {
    return times.some((t) => Math.abs(t - at) <= margin);
  }

  free(node: Node, w: Window): boolean {
    if (node.frozenFrom !== undefined && w.to >= node.frozenFrom - NOT_THE_NODE_S) return false;
    return node.busy.every(([from, to]) => w.to + NOT_THE_NODE_S < from || w.from > to + NOT_THE_NODE_S);
  }

  reserve(node: Node, w: Window): void {
    node.busy.push([w.from, w.to]);
    this.used.add(node.name);
  }

  holdsStake(node: Node, at: number): boolean {
    if (!node.validator) return false;
    if (!node.periodEnd) return true;
    return at < node.periodEnd.at - 10 || (node.autoRenewing && node.periodEnd.paid && at > node.periodEnd.at + 10);
  }

  /** The node's scenario with `conditions` held besides its base (auto-renewing stays). */
  scenario(node: Node, conditions: string[]): string {
    const base = node.autoRenewing ? ['auto-renewing'] : [];
    const all = [...base, ...conditions];
    return all.length === 0 ? 'healthy' : all.join('+');
  }

  text(): string {
    const lines: string[] = [];
    lines.push(`# A week generated by bench/trust/generate.ts from seed ${this.seed} (npm run bench:trust -- --seed ${this.seed}):`);
    lines.push('# the grammar and truth of bench/trust/week.txt; the truth follows docs/alerting.md and docs/validators.md.');
    lines.push('');
    for (const node of this.nodes) {
      const options = [
        `role=${node.l1 ? 'l1' : node.validator ? 'validator' : 'rpc'}`,
        ...(node.validator ? [] : ['validator=false']),
        ...(node.l1 ? ['l1=true'] : []),
        ...(node.autoRenewing ? ['scenario=auto-renewing'] : []),
        ...(node.periodEnd ? [`validationEndsIn=${node.periodEnd.at}`] : []),
      ];
      const notes = [node.observer ? 'a baseline observer' : '', node.periodEnd ? `its period ends ${node.periodEnd.paid ? 'paid' : 'unpaid'}` : ''].filter(Boolean);
      lines.push(`node ${node.name} ${options.join(' ')}${notes.length ? `   # ${notes.join('; ')}` : ''}`);
    }
    lines.push('');
    const sorted = [...this.events].sort((a, b) => a.at - b.at || a.seq - b.seq);
    const width = Math.max(...sorted.map((e) => e.text.length));
    for (const e of sorted) lines.push(`${String(e.at).padEnd(4)}${e.text.padEnd(width + 1)}=> ${e.truth}`);
    return `${lines.join('\n')}\n`;
  }
}

// --- the stories: each returns false when it does not fit at this node and moment

type Story = (w: Week, node: Node, at: number) => boolean;

/** The incident of a node's problems, with their symptoms (one page per problem). */
const TRUTH = {
  disk: (t: string) => `AvalancheDiskLow target=${t} also=AvalancheNodeUnhealthy,AvalancheCheckFailing{check=diskspace}`,
  cut: (n: Node) =>
    `AvalancheCheckFailing target=${n.name} check=network|C|P|X also=AvalancheNodeUnhealthy${n.validator ? ',AvalancheValidatorRewardAtRisk,AvalancheValidatorDowntimeBudgetLow,AvalancheValidatorUnreachableByPeers' : ''}`,
  upgrade: (t: string) => `AvalancheNodeUpgradeRequired target=${t} also=AvalancheNodeUpgradeUnknown,AvalancheNodeUnhealthy,AvalancheCheckFailing{check=futureupgrade|C|P|X}`,
  unreachable: (t: string) => `AvalancheNodeUnreachable target=${t}`,
  port: (t: string) => `AvalancheValidatorUnreachableByPeers target=${t} also=AvalancheCheckFailing{check=network},AvalancheNodeUnhealthy`,
  peers: (t: string) => `AvalancheValidatorUnreachableByPeers target=${t} also=AvalancheValidatorRewardAtRisk,AvalancheValidatorDowntimeBudgetLow`,
  risk: (t: string) => `AvalancheValidatorRewardAtRisk target=${t} also=AvalancheValidatorDowntimeBudgetLow`,
  flapC: (t: string) => `AvalancheCheckFailing target=${t} check=C also=AvalancheNodeUnhealthy`,
  missed: (t: string) => `AvalancheValidatorRewardMissed target=${t}`,
  service: (t: string) => `AvalancheServiceUnhealthy target=${t} also=AvalancheServiceComponentDown`,
};

function episodesLeft(node: Node, family: string, needed: number): boolean {
  return (node.episodes.get(family) ?? 0) + needed <= 2;
}

function episode(node: Node, family: string): void {
  node.episodes.set(family, (node.episodes.get(family) ?? 0) + 1);
}

/** A window no global event forbids for a node story: no reshard or dip where the story says so. */
function fits(w: Week, node: Node, win: Window, opts: { noDip?: boolean; noReshard?: boolean; startOutsideDip?: number; selfOnly?: boolean } = {}): boolean {
  if (win.from < 6 || win.to > GENERATED_END_S - 4) return false;
  if (!w.free(node, win)) return false;
  if (opts.noDip && w.dip && overlaps(win, { from: w.dip.from - 12, to: w.dip.to + 12 })) return false;
  if (opts.startOutsideDip !== undefined && w.dip && win.from >= w.dip.from - opts.startOutsideDip && win.from <= w.dip.to + 12) return false;
  if (opts.noReshard && w.reshards.some((t) => t >= win.from - 2 && t <= win.to + 2)) return false;
  if (node.periodEnd && win.to >= node.periodEnd.at - 45 && win.from <= node.periodEnd.at + 15) return false;
  if (!node.validator && w.witnessed.some((x) => overlaps(x, win))) return false;
  return true;
}

const disk: Story = (w, n, at) => {
  const end = at + w.rng.int(14, 40);
  if (!episodesLeft(n, 'disk', 1) || n.l1 || !fits(w, n, { from: at, to: end })) return false;
  const id = w.id('disk');
  w.add(at, `scenario ${n.name} ${w.scenario(n, ['disk-low'])}`, `open ${id}: ${TRUTH.disk(n.name)}`);
  // an operator restart in the middle changes nothing: the disk is still low
  if (w.rng.chance(0.3)) w.add(at + Math.floor((end - at) / 2), `restart ${n.name}`);
  w.add(end, `scenario ${n.name} ${w.scenario(n, [])}`, `close ${id}`);
  w.reserve(n, { from: at, to: end });
  episode(n, 'disk');
  return true;
};

const cut: Story = (w, n, at) => {
  const end = at + w.rng.int(12, 24);
  if (n.observer || n.l1 || !episodesLeft(n, 'chains', 1) || !fits(w, n, { from: at, to: end })) return false;
  if (w.dip && at > w.dip.from && at < w.dip.to && n.validator) w.features.add('a validator cut off inside the dip');
  const id = w.id('cut');
  w.add(at, `scenario ${n.name} ${w.scenario(n, ['network-down'])}`, `open ${id}: ${TRUTH.cut(n)}`);
  w.add(end, `scenario ${n.name} ${w.scenario(n, [])}`, `close ${id}`);
  w.reserve(n, { from: at, to: end });
  episode(n, 'chains');
  return true;
};

/** Disk low while the node is cut off: two problems, two incidents, each closed when it ends. */
const diskWhileCut: Story = (w, n, at) => {
  const diskAt = at + w.rng.int(4, 8);
  const reconnected = diskAt + w.rng.int(6, 10);
  const end = reconnected + w.rng.int(8, 16);
  if (n.observer || n.l1 || !episodesLeft(n, 'chains', 1) || !episodesLeft(n, 'disk', 1) || !fits(w, n, { from: at, to: end })) return false;
  const c = w.id('cut');
  const d = w.id('disk');
  w.add(at, `scenario ${n.name} ${w.scenario(n, ['network-down'])}`, `open ${c}: ${TRUTH.cut(n)}`);
  w.add(diskAt, `scenario ${n.name} ${w.scenario(n, ['network-down', 'disk-low'])}`, `open ${d}: ${TRUTH.disk(n.name)}`);
  w.add(reconnected, `scenario ${n.name} ${w.scenario(n, ['disk-low'])}`, `close ${c}`);
  w.add(end, `scenario ${n.name} ${w.scenario(n, [])}`, `close ${d}`);
  w.reserve(n, { from: at, to: end });
  episode(n, 'chains');
  episode(n, 'disk');
  w.features.add('overlap');
  return true;
};

const unreachable: Story = (w, n, at) => {
  const end = at + w.rng.int(12, 24);
  if (n.observer || n.l1 || !episodesLeft(n, 'unreachable', 1) || !fits(w, n, { from: at, to: end })) return false;
  const id = w.id('unr');
  w.add(at, `scenario ${n.name} ${w.scenario(n, [w.rng.pick(['proxy-error', 'reset'])])}`, `open ${id}: ${TRUTH.unreachable(n.name)}`);
  w.add(end, `scenario ${n.name} ${w.scenario(n, [])}`, `close ${id}`);
  w.reserve(n, { from: at, to: end });
  episode(n, 'unreachable');
  return true;
};

/** Disk low while unreachable: nothing known of it until the node answers again, then it pages. */
const diskWhileUnreachable: Story = (w, n, at) => {
  const diskAt = at + w.rng.int(4, 8);
  const answers = diskAt + w.rng.int(6, 10);
  const end = answers + w.rng.int(10, 18);
  if (n.observer || n.l1 || !episodesLeft(n, 'unreachable', 1) || !episodesLeft(n, 'disk', 1) || !fits(w, n, { from: at, to: end })) return false;
  const u = w.id('unr');
  const d = w.id('disk');
  const transport = w.rng.pick(['proxy-error', 'reset']);
  w.add(at, `scenario ${n.name} ${w.scenario(n, [transport])}`, `open ${u}: ${TRUTH.unreachable(n.name)}`);
  w.add(diskAt, `scenario ${n.name} ${w.scenario(n, [transport, 'disk-low'])}`);
  w.add(answers, `scenario ${n.name} ${w.scenario(n, ['disk-low'])}`, `close ${u}; open ${d}: ${TRUTH.disk(n.name)}`);
  w.add(end, `scenario ${n.name} ${w.scenario(n, [])}`, `close ${d}`);
  w.reserve(n, { from: at, to: end });
  episode(n, 'unreachable');
  episode(n, 'disk');
  w.features.add('overlap');
  w.features.add('disk low while unreachable');
  return true;
};

/** An upgrade is due (warning), may turn critical, may be joined by a low disk or a cut-off, then the build is installed. */
const upgrade: Story = (w, n, at) => {
  if (!n.validator || !episodesLeft(n, 'upgrade', 1)) return false;
  // one far upgrade a week, scheduled after the missed one (see Week.missedUpgradeAt)
  if (w.farUpgradeAt !== undefined || (w.missedUpgradeAt !== undefined && at <= w.missedUpgradeAt)) return false;
  const variant = w.rng.pick(['plain', 'critical', 'disk', 'cut'] as const);
  if (variant === 'cut' && (n.observer || n.l1 || !episodesLeft(n, 'chains', 1))) return false;
  if (variant === 'disk' && (n.l1 || !episodesLeft(n, 'disk', 1))) return false;
  let t = at + w.rng.int(8, 14);
  const middle: Array<() => void> = [];
  const up = w.id('up');
  if (variant === 'critical') {
    const when = t;
    middle.push(() => w.add(when, `scenario ${n.name} ${w.scenario(n, ['upgrade-required'])} upgradeIn=40000`, `update ${up}: severity=critical`));
    t += w.rng.int(8, 14);
  } else if (variant === 'disk' || variant === 'cut') {
    const condition = variant === 'disk' ? 'disk-low' : 'network-down';
    const other = variant === 'disk' ? w.id('disk') : w.id('cut');
    const truth = variant === 'disk' ? TRUTH.disk(n.name) : TRUTH.cut(n);
    const from = t;
    const to = t + w.rng.int(10, 16);
    // cut off, the node knows nothing of its peers' upgrade: still not upgraded, the incident stays
    middle.push(() => w.add(from, `scenario ${n.name} ${w.scenario(n, ['upgrade-required', condition])}`, `open ${other}: ${truth}`));
    middle.push(() => w.add(to, `scenario ${n.name} ${w.scenario(n, ['upgrade-required'])}`, `close ${other}`));
    t = to + w.rng.int(6, 10);
  }
  const end = t;
  if (!fits(w, n, { from: at, to: end })) return false;
  w.farUpgradeAt = at;
  w.add(at, `scenario ${n.name} ${w.scenario(n, ['upgrade-required'])} upgradeIn=432000`, `open ${up}: ${TRUTH.upgrade(n.name)}`);
  for (const m of middle) m();
  w.add(end, `restart ${n.name}`);
  w.add(end, `scenario ${n.name} ${w.scenario(n, [])}`, `close ${up}`);
  w.reserve(n, { from: at, to: end });
  episode(n, 'upgrade');
  if (variant === 'disk') episode(n, 'disk');
  if (variant === 'cut') episode(n, 'chains');
  if (variant === 'disk' || variant === 'cut') w.features.add('overlap');
  if (variant === 'cut') w.features.add('an upgrade due while cut off');
  return true;
};

/** A missed upgrade: the deadline passes, upgraded peers drop the node; the incident stays until the build knows it, across a reshard. */
const missedUpgrade: Story = (w, n, at) => {
  const deadline = w.rng.int(10, 20);
  const end = at + deadline + w.rng.int(45, 70);
  if (!n.validator || n.observer || n.l1 || !episodesLeft(n, 'upgrade', 1) || !episodesLeft(n, 'chains', 1)) return false;
  // its new shard must judge the missed deadline it never saw
  if (!w.moves(n.name, at + deadline + 25, end - 12)) return false;
  if (!fits(w, n, { from: at, to: end })) return false;
  if (w.missedUpgradeAt !== undefined || (w.farUpgradeAt !== undefined && w.farUpgradeAt <= at)) return false;
  w.missedUpgradeAt = at;
  const up = w.id('missed-up');
  w.add(at, `scenario ${n.name} ${w.scenario(n, ['upgrade-required'])} upgradeIn=${deadline}`, `open ${up}: ${TRUTH.upgrade(n.name)}`);
  w.add(end, `restart ${n.name}`);
  w.add(end, `scenario ${n.name} ${w.scenario(n, [])}`, `close ${up}`);
  w.reserve(n, { from: at, to: end });
  episode(n, 'upgrade');
  episode(n, 'chains');
  w.features.add('a missed upgrade across a reshard');
  return true;
};

const port: Story = (w, n, at) => {
  const grace = w.rng.chance(0.5);
  const restartAt = at + w.rng.int(8, 12);
  const end = (grace ? restartAt + w.rng.int(12, 20) : at + w.rng.int(15, 32));
  if (!n.validator || n.observer || n.l1 || !episodesLeft(n, 'peers', 1) || !w.holdsStake(n, end + 10)) return false;
  if (!fits(w, n, { from: at, to: end }, grace ? { noDip: true } : { startOutsideDip: 15 })) return false;
  if (grace && w.nodes.some((r) => !r.validator && r.busy.some(([f, t]) => overlaps({ from: f, to: t }, { from: at, to: end })))) return false;
  // Inside AvalancheGo's ingress grace (10 minutes from a node's start: a whole week) the closed port
  // is told only by a fleet node that is not a validator, and only to the shard polling both.
  const witness = w.nodes.find((r) => !r.validator && w.sameShard(r.name, n.name, { from: at, to: end }) && w.free(r, { from: at, to: end }));
  if (!witness) return false;
  const id = w.id('port');
  w.add(at, `scenario ${n.name} ${w.scenario(n, ['inbound-closed'])}`, `open ${id}: ${TRUTH.port(n.name)}`);
  if (grace) {
    // a restart starts AvalancheGo's ingress grace over: its own check passes meanwhile, the RPC nodes still cannot connect
    w.add(restartAt, `restart ${n.name} ingressGraceSeconds=${w.rng.int(6, 14)}`);
    w.witnessed.push({ from: at, to: end });
  } else witness.busy.push([at, end]); // kept a witness: no story of its own meanwhile
  w.add(end, `scenario ${n.name} ${w.scenario(n, [])}`, `close ${id}`);
  w.reserve(n, { from: at, to: end });
  episode(n, 'peers');
  return true;
};

const peers: Story = (w, n, at) => {
  const end = at + w.rng.int(15, 28);
  if (!n.validator || n.observer || n.l1 || !episodesLeft(n, 'peers', 1) || !w.holdsStake(n, end + 10)) return false;
  // Seen from both sides of a kill, 15 to 28 s is too short: the witnesses' finding waits a baseline
  // read after they saw it apart, and a start waits for the first baseline (docs/validators.md).
  if (!fits(w, n, { from: at, to: end }, { noDip: true }) || w.down.some((d) => overlaps(d, { from: at, to: end }))) return false;
  const id = w.id('peers');
  w.add(at, `scenario ${n.name} ${w.scenario(n, ['unreachable-by-peers'])}`, `open ${id}: ${TRUTH.peers(n.name)}`);
  w.add(end, `scenario ${n.name} ${w.scenario(n, [])}`, `close ${id}`);
  w.reserve(n, { from: at, to: end });
  w.selfOnly.push({ from: at, to: end });
  episode(n, 'peers');
  return true;
};

/** Its own reward at risk (paged as its own before a dip that comes while it is open: `past` the dip). */
const riskPast = (past?: number): Story => (w, n, at) => {
  const end = Math.max(at + w.rng.int(25, 55), past ?? 0);
  if (!n.validator || !episodesLeft(n, 'risk', 2) || !w.holdsStake(n, end + 10)) return false;
  if (!fits(w, n, { from: at, to: end }, { startOutsideDip: 22 })) return false;
  const withDisk = !n.l1 && episodesLeft(n, 'disk', 1) && w.rng.chance(0.3);
  const id = w.id('risk');
  w.add(at, `scenario ${n.name} ${w.scenario(n, ['reward-at-risk'])}`, `open ${id}: ${TRUTH.risk(n.name)}`);
  if (withDisk) {
    const d = w.id('disk');
    const from = at + w.rng.int(5, 10);
    const to = Math.min(end - 4, from + w.rng.int(8, 14));
    w.add(from, `scenario ${n.name} ${w.scenario(n, ['reward-at-risk', 'disk-low'])}`, `open ${d}: ${TRUTH.disk(n.name)}`);
    w.add(to, `scenario ${n.name} ${w.scenario(n, ['reward-at-risk'])}`, `close ${d}`);
    episode(n, 'disk');
  }
  w.add(end, `scenario ${n.name} ${w.scenario(n, [])}`, `close ${id}`);
  w.reserve(n, { from: at, to: end });
  episode(n, 'risk');
  episode(n, 'risk');
  if (withDisk) w.features.add('overlap');
  if (w.dip && at < w.dip.from && end > w.dip.to) w.features.add('dip over an open incident');
  return true;
};
const risk = riskPast();

const flapping: Story = (w, n, at) => {
  const end = at + w.rng.int(18, 32);
  if (n.observer || n.l1 || !episodesLeft(n, 'chains', 1) || !fits(w, n, { from: at, to: end })) return false;
  const id = w.id('flap');
  w.add(at, `scenario ${n.name} ${w.scenario(n, ['flapping'])}`, `open ${id}: ${TRUTH.flapC(n.name)}`);
  w.add(end, `scenario ${n.name} ${w.scenario(n, [])}`, `close ${id}`);
  w.reserve(n, { from: at, to: end });
  episode(n, 'chains');
  return true;
};

/** Down, up, down (perhaps under a silence), up, down for good: the last outage pages whatever the flap count. */
const outageTurnsReal: Story = (w, n, at) => {
  if (!n.validator || n.observer || n.l1 || n.periodEnd || (n.episodes.get('chains') ?? 0) > 0) return false;
  const d1 = w.rng.int(12, 15);
  const u1 = w.rng.int(12, 15);
  const d2 = w.rng.int(12, 15);
  const u2 = w.rng.int(12, 15);
  const t1 = at + d1;
  const t2 = t1 + u1;
  const t3 = t2 + d2;
  const t4 = t3 + u2;
  const silence = w.rng.chance(0.5);
  const silenceFrom = t2 - 3;
  const silenceTo = t3 + 6;
  if (t4 > GENERATED_END_S - 40) return false;
  if (!fits(w, n, { from: at, to: GENERATED_END_S - 5 })) return false;
  if (silence && (w.restarting(silenceFrom) || w.reshards.some((r) => r >= silenceFrom - 2 && r <= silenceTo + 2))) return false;
  const first = w.id('cut');
  w.add(at, `scenario ${n.name} ${w.scenario(n, ['network-down'])}`, `open ${first}: ${TRUTH.cut(n)}`);
  w.add(t1, `scenario ${n.name} ${w.scenario(n, [])}`, `close ${first}`);
  if (silence) {
    const name = w.id('hush');
    const q = w.id('quiet');
    w.add(silenceFrom, `silence ${name} target=${n.name} for=${silenceTo - silenceFrom}`);
    w.add(t2, `scenario ${n.name} ${w.scenario(n, ['network-down'])}`, `quiet ${q}: target=${n.name}`);
    w.add(t3, `scenario ${n.name} ${w.scenario(n, [])}`, `close ${q}`);
    w.silenced.push({ from: silenceFrom, to: silenceTo });
  } else {
    const second = w.id('cut');
    w.add(t2, `scenario ${n.name} ${w.scenario(n, ['network-down'])}`, `open ${second}: ${TRUTH.cut(n)}`);
    w.add(t3, `scenario ${n.name} ${w.scenario(n, [])}`, `close ${second}`);
  }
  const last = w.id('cut');
  w.add(t4, `scenario ${n.name} ${w.scenario(n, ['network-down'])}`, `open ${last}: ${TRUTH.cut(n)}`);
  w.reserve(n, { from: at, to: GENERATED_END_S });
  n.frozenFrom = t4;
  n.episodes.set('chains', 3);
  w.features.add('an outage that turns real');
  return true;
};

const bootstrapping: Story = (w, n, at) => {
  const end = at + w.rng.int(12, 24);
  if (n.observer || n.l1 || !n.validator || !fits(w, n, { from: at, to: end })) return false;
  const q = w.id('boot');
  w.add(at, `scenario ${n.name} ${w.scenario(n, ['bootstrapping'])}`, `quiet ${q}: target=${n.name}`);
  w.add(end, `scenario ${n.name} ${w.scenario(n, [])}`, `close ${q}`);
  w.reserve(n, { from: at, to: end });
  return true;
};

const lyingObserver: Story = (w, n, at) => {
  const end = at + w.rng.int(15, 30);
  if (!n.validator || n.observer || n.l1 || !w.holdsStake(n, end) || !fits(w, n, { from: at, to: end })) return false;
  w.add(at, `scenario ${n.name} ${w.scenario(n, ['lying-observer'])}`, 'none   # says every other validator is disconnected');
  w.add(end, `scenario ${n.name} ${w.scenario(n, [])}`);
  w.reserve(n, { from: at, to: end });
  return true;
};

const restart: Story = (w, n, at) => {
  if (!fits(w, n, { from: at, to: at + 4 })) return false;
  w.add(at, `restart ${n.name}${w.rng.chance(0.5) ? ` snapshotSeconds=${w.rng.int(10, 40)}` : ''}`);
  w.reserve(n, { from: at, to: at + 4 });
  return true;
};

/** A silence over a problem that starts under it: quiet while it holds; when it ends (expires or is removed) over the live problem, the problem pages. */
const silenced = (way?: 'ends-under' | 'expires' | 'removed'): Story => (w, n, at) => {
  if (n.observer || n.l1) return false;
  const how = way ?? w.rng.pick(['ends-under', 'expires', 'removed'] as const);
  const problemAt = at + 2;
  const useCut = n.validator && episodesLeft(n, 'chains', 1) && w.rng.chance(0.5);
  if (!useCut && !episodesLeft(n, 'disk', 1)) return false;
  const condition = useCut ? 'network-down' : 'disk-low';
  const name = w.id('hush');
  const q = w.id('quiet');
  const i = useCut ? w.id('cut') : w.id('disk');
  const truth = useCut ? TRUTH.cut(n) : TRUTH.disk(n.name);
  let silenceEnd: number;
  let end: number;
  const steps: Array<() => void> = [];
  if (how === 'ends-under') {
    const fixed = problemAt + w.rng.int(10, 16);
    silenceEnd = fixed + w.rng.int(6, 12);
    end = silenceEnd;
    steps.push(() => w.add(fixed, `scenario ${n.name} ${w.scenario(n, [])}`, `close ${q}`));
  } else if (how === 'expires') {
    silenceEnd = problemAt + w.rng.int(10, 16);
    end = silenceEnd + w.rng.int(10, 18);
    steps.push(() => w.add(silenceEnd, `expect silence-end ${name}`, `close ${q}; open ${i}: ${truth}`));
    steps.push(() => w.add(end, `scenario ${n.name} ${w.scenario(n, [])}`, `close ${i}`));
  } else {
    silenceEnd = problemAt + w.rng.int(10, 16);
    end = silenceEnd + w.rng.int(10, 18);
    steps.push(() => w.add(silenceEnd, `unsilence ${name}`, `close ${q}; open ${i}: ${truth}`));
    steps.push(() => w.add(end, `scenario ${n.name} ${w.scenario(n, [])}`, `close ${i}`));
  }
  const holds = how === 'removed' ? 120 : silenceEnd - at;
  if (w.restarting(at) || (how === 'removed' && w.restarting(silenceEnd))) return false;
  if (!fits(w, n, { from: at, to: end }, { noReshard: true })) return false;
  w.add(at, `silence ${name} target=${n.name} for=${holds}`);
  w.add(problemAt, `scenario ${n.name} ${w.scenario(n, [condition])}`, `quiet ${q}: target=${n.name}`);
  for (const step of steps) step();
  w.silenced.push({ from: at, to: how === 'removed' ? silenceEnd : at + holds });
  w.reserve(n, { from: at, to: Math.max(end, at + holds) });
  if (how !== 'ends-under') episode(n, useCut ? 'chains' : 'disk');
  w.features.add(how === 'ends-under' ? 'a problem over under a silence' : 'a silence over a live problem');
  return true;
};

/** The L1 node: a validation's balance runs low (and critical), or one runs out while the other runs low; then topped up. */
const l1: Story = (w, n, at) => {
  if (!n.l1) return false;
  const two = w.rng.chance(0.5);
  const mid = at + w.rng.int(12, 20);
  const end = mid + w.rng.int(12, 20);
  if (!episodesLeft(n, 'l1', 1) || !fits(w, n, { from: at, to: end })) return false;
  const healthy = `l1Balances=[${HEALTHY_L1},${HEALTHY_L1}]`;
  if (two) {
    const inactive = w.id('l1-inactive');
    const low = w.id('l1-low');
    w.add(at, `scenario ${n.name} ${w.scenario(n, [])} l1Balances=[0,${LOW_L1}]`, `open ${inactive}: AvalancheL1ValidatorInactive target=${n.name} validation_id=#0 also=AvalancheL1ValidatorBalanceLow; open ${low}: AvalancheL1ValidatorBalanceLow target=${n.name} validation_id=#1`);
    w.add(mid, `scenario ${n.name} ${w.scenario(n, [])} l1Balances=[${HEALTHY_L1},${LOW_L1}]`, `close ${inactive}`);
    w.add(end, `scenario ${n.name} ${w.scenario(n, [])} ${healthy}`, `close ${low}`);
  } else {
    const low = w.id('l1-low');
    w.add(at, `scenario ${n.name} ${w.scenario(n, [])} l1Balances=[${LOW_L1},${HEALTHY_L1}]`, `open ${low}: AvalancheL1ValidatorBalanceLow target=${n.name} validation_id=#0`);
    w.add(mid, `scenario ${n.name} ${w.scenario(n, [])} l1Balances=[${CRITICAL_L1},${HEALTHY_L1}]`, `update ${low}: severity=critical`);
    w.add(end, `scenario ${n.name} ${w.scenario(n, [])} ${healthy}`, `close ${low}`);
  }
  w.reserve(n, { from: at, to: end });
  episode(n, 'l1');
  return true;
};

/** A hosted API: down or degraded (one incident), or rate limited (our back-off: nothing). */
function service(w: Week, api: 'data-api' | 'metrics-api', at: number): boolean {
  const kind = api === 'metrics-api' ? 'down' : w.rng.pick(['down', 'degraded', 'rate-limited'] as const);
  const end = at + w.rng.int(12, 24);
  const win = { from: at - 4, to: end + 6 };
  if (win.from < 6 || end > GENERATED_END_S - 4 || w.services.get(api)!.some((x) => overlaps(x, win))) return false;
  if (kind === 'rate-limited') {
    w.add(at, `service ${api} rate-limited retryAfterSeconds=${w.rng.int(3, 6)}`);
    w.add(end, `service ${api} healthy`);
  } else {
    const id = w.id(api === 'data-api' ? 'dapi' : 'mapi');
    w.add(at, `service ${api} ${kind}`, `open ${id}: ${TRUTH.service(api)}`);
    w.add(end, `service ${api} healthy`, `close ${id}`);
  }
  w.services.get(api)!.push(win);
  return true;
}

/** Tries a story at random nodes and moments in [from, to] until it fits. */
function place(w: Week, story: Story, nodes: Node[], from: number, to: number, tries = 120): boolean {
  for (let i = 0; i < tries; i++) {
    if (story(w, w.rng.pick(nodes), w.rng.int(from, Math.max(from, to)))) return true;
  }
  return false;
}

/** What every generated week shows besides its skeleton (reshards both ways, kills, a dip, an unpaid and a paid period). */
export const COVERAGE = [
  'overlap',
  'disk low while unreachable',
  'dip over an open incident',
  'a validator cut off inside the dip',
  'a silence over a live problem',
  'an outage that turns real',
  'a missed upgrade across a reshard',
  'an incident handed to another shard',
  'an incident handed back to one shard',
] as const;

export function generateWeek(seed: number): string {
  if (!Number.isInteger(seed) || seed < 1) throw new Error(`a seed is a positive integer, got ${seed}`);
  // drawn again (deterministically) until the week shows everything it should
  for (let attempt = 0; attempt < 40; attempt++) {
    const w = build(seed, attempt);
    if (w && COVERAGE.every((f) => w.features.has(f)) && w.incidents >= GENERATED_MIN.incidents && w.paged.size >= GENERATED_MIN.nodes) return w.text();
  }
  throw new Error(`seed ${seed}: no week found that shows ${COVERAGE.join(', ')}`);
}

function build(seed: number, attempt: number): Week | undefined {
  const w = new Week(seed, attempt);
  const rng = w.rng;

  // --- the fleet: 12 to 14 validators (the first three are the baseline observers), two RPC nodes, an L1 node
  const validators = rng.int(12, 14);
  for (let i = 1; i <= validators; i++) {
    w.nodes.push({ name: `validator-${String(i).padStart(2, '0')}`, validator: true, observer: i <= OBSERVERS, l1: false, autoRenewing: false, busy: [], episodes: new Map() });
  }
  for (const name of ['rpc-01', 'rpc-02']) w.nodes.push({ name, validator: false, observer: false, l1: false, autoRenewing: false, busy: [], episodes: new Map() });
  const l1Node: Node = { name: 'l1-node', validator: true, observer: false, l1: true, autoRenewing: false, busy: [], episodes: new Map() };
  w.nodes.push(l1Node);
  const plain = rng.shuffle(w.nodes.filter((n) => n.validator && !n.observer && !n.l1));
  for (const n of plain.slice(0, rng.int(1, 2))) n.autoRenewing = true;
  // two periods end in the week: one unpaid (a plain validator), one paid
  const unpaid = plain.find((n) => !n.autoRenewing)!;
  // Not an auto-renewed one either: its renewal is decided by the vote at the end, and whether it
  // warns that it ends hangs on the outlook the week's other stories change (docs/alerting.md).
  const paid = plain.find((n) => n !== unpaid && !n.autoRenewing) ?? plain.find((n) => n !== unpaid)!;
  unpaid.periodEnd = { at: rng.int(150, 290), paid: false };
  paid.periodEnd = { at: rng.int(110, 300), paid: true };

  // --- the skeleton: the shard count changes both ways, kills at random moments, one dip
  w.reshards.push(rng.int(45, 80), rng.int(140, 175), rng.int(225, 265));
  w.counts.push(rng.pick([2, 3]), 1, rng.pick([2, 3]));
  w.reshards.forEach((t, i) => w.add(t, `shards ${w.counts[i]}`));
  for (let k = 0; k < 2; k++) {
    for (let i = 0; i < 50; i++) {
      const at = rng.int(20, GENERATED_END_S - 40);
      const back = at + rng.int(3, 8);
      if (w.near(at, w.reshards, 14) || w.near(back, w.reshards, 14) || w.down.some((d) => overlaps(d, { from: at - 20, to: back + 20 }))) continue;
      w.add(at, 'kill-daemon');
      w.add(back, 'start-daemon');
      w.down.push({ from: at, to: back + 6 });
      break;
    }
  }
  if (w.down.length < 2) return undefined;
  // the dip: away from the periods' ends (the unpaid one's reward at risk is paged as its own first)
  for (let i = 0; i < 200 && !w.dip; i++) {
    const from = rng.int(80, 240);
    const dip = { from, to: from + rng.int(10, 16), percent: rng.pick([60, 65, 70, 75]) };
    if (overlaps(dip, { from: unpaid.periodEnd.at - 70, to: unpaid.periodEnd.at + 15 }) || overlaps(dip, { from: paid.periodEnd.at - 15, to: paid.periodEnd.at + 15 })) continue;
    w.dip = dip;
  }
  if (!w.dip) return undefined;

  // --- the stories every week has, then more at random until the week is full
  const endings: string[] = [];
  for (const n of [unpaid, paid]) {
    const end = n.periodEnd!;
    // A validation 10 days old that ends this week is in the last half of its period from the start:
    // a node that does not renew warns that it ends (AvalancheValidatorEndingSoon) until it has.
    const ending = n.autoRenewing ? undefined : w.id('end');
    if (ending) endings.push(`open ${ending}: AvalancheValidatorEndingSoon target=${n.name}`);
    if (!end.paid) {
      const at = end.at - rng.int(30, 42);
      const risk = w.id('risk');
      const missed = w.id('missed');
      w.add(at, `scenario ${n.name} ${w.scenario(n, [])} rewardingStakePercent=20`, `open ${risk}: ${TRUTH.risk(n.name)}`);
      w.add(end.at, `expect period-end ${n.name}`, `close ${[risk, ending].filter(Boolean).join(',')}; open ${missed}: ${TRUTH.missed(n.name)}`);
      n.busy.push([at, GENERATED_END_S]);
      n.frozenFrom = at;
      w.used.add(n.name);
    } else {
      w.add(end.at, `expect period-end ${n.name}`, ending ? `close ${ending}` : 'none');
      n.busy.push([end.at - 10, end.at + 10]);
    }
  }
  if (endings.length > 0) w.add(1, 'sample', endings.join('; '));
  const anyNode = w.nodes;
  const validatorsOnly = w.nodes.filter((n) => n.validator && !n.l1);
  // a validator's own incident open when the dip comes, and one paged inside it
  place(w, riskPast(w.dip.to + 6), validatorsOnly, w.dip.from - 40, w.dip.from - 24);
  place(w, cut, validatorsOnly, w.dip.from + 1, w.dip.to - 4);
  place(w, outageTurnsReal, validatorsOnly, 20, 200);
  place(w, missedUpgrade, validatorsOnly, 20, 220);
  place(w, upgrade, validatorsOnly, 10, 280);
  place(w, diskWhileCut, anyNode, 10, 300);
  place(w, diskWhileUnreachable, anyNode, 10, 300);
  place(w, silenced(rng.pick(['expires', 'removed'])), anyNode, 10, 290);
  place(w, silenced(), anyNode, 10, 290);
  place(w, port, validatorsOnly, 10, 290);
  place(w, peers, validatorsOnly, 10, 290);
  place(w, l1, [l1Node], 8, 140);
  place(w, l1, [l1Node], 150, 300);
  place(w, bootstrapping, validatorsOnly, 10, 300);
  place(w, lyingObserver, validatorsOnly, 10, 300);
  place(w, flapping, anyNode, 10, 300);
  for (const api of ['data-api', 'metrics-api', 'data-api'] as const) {
    for (let i = 0; i < 40 && !service(w, api, rng.int(10, 300)); i++);
  }
  const fillers: Story[] = [disk, disk, cut, unreachable, upgrade, risk, port, peers, diskWhileCut, diskWhileUnreachable, restart, restart, restart];
  for (let i = 0; (w.incidents < GENERATED_MIN.incidents + 6 || w.paged.size < GENERATED_MIN.nodes) && i < 400; i++) {
    place(w, rng.pick(fillers), anyNode, 8, 310, 4);
  }

  // the dip: every validator holding stake at the time is told a notice (not healthy, nothing paged)
  const dip = w.dip;
  const touched = w.nodes.filter((n) => w.holdsStake(n, dip.from) && w.holdsStake(n, dip.to)).map((n) => n.name);
  const q = w.id('dip');
  w.add(dip.from, `dip connectedPercent=${dip.percent}`, `notice; quiet ${q}: target=${touched.join('|')}`);
  w.add(dip.to, 'dip off', `close ${q}`);

  // samples: a dozen moments the daemons run, away from their restarts
  const starts = [...w.reshards, ...w.down.map((d) => d.to)];
  const sampled: number[] = [];
  for (let i = 0; i < 400 && sampled.length < 12; i++) {
    const at = rng.int(10, GENERATED_END_S - 2);
    if ([0, 1, 2, 3, 4].some((d) => w.isDown(at + d)) || starts.some((s) => at >= s - 3 && at <= s + 10) || w.near(at, sampled, 14)) continue;
    sampled.push(at);
    w.add(at, 'sample');
  }
  w.add(GENERATED_END_S, 'end');
  // incidents open across a change of the shard count whose target moves: handed over both ways
  const script = parseScript(w.text(), `seed:${seed}`);
  for (const incident of script.incidents.values()) {
    const target = incident.labels.target!;
    if (incident.quiet || !w.nodes.some((n) => n.name === target)) continue;
    w.reshards.forEach((t, i) => {
      if (incident.openedBy.at < t - 5 && (incident.closedBy?.at ?? Infinity) > t + 10 && shardOf(target, w.countAt(t - 1)) !== shardOf(target, w.counts[i]!)) {
        w.features.add(w.counts[i] === 1 ? 'an incident handed back to one shard' : 'an incident handed to another shard');
      }
    });
  }
  return w;
}
