/**
 * The trust benchmark's script (bench/trust/week.txt): the fleet, then one line per event, each with
 * its ground truth after `=>`. Grammar (docs in week.txt's header):
 *
 *   node <name> [key=value…]                  a simulated node (SimNodeOptions, plus role=…)
 *   <at> <action> [args…] => <truth> [ | pending: <issue>]
 *
 * where <at> is seconds from the simulator's start (the week's clock), <truth> is `none`, `notice`,
 * or `;`-separated `open <id>: <alertname> key=value… [also=<alertname>[{key=value…}],…]`,
 * `quiet <id>: target=<name>[|<name>…]`, `close <id>[,<id>…]`, `update <id>: key=value…`.
 * A label value `a|b` accepts either; a value `[a,b]` is a list.
 */
import { isServiceScenario } from '../../src/sim/services.js';
import { isScenario } from '../../src/sim/scenarios.js';

export type Value = string | number | boolean | Array<string | number>;

export interface FleetLine {
  name: string;
  options: Record<string, Value>;
}

/** A symptom of an incident's problem: its alertname and the labels it must carry beyond the incident's. */
export interface Symptom {
  alertname: string;
  labels: Record<string, string>;
}

export interface Expected {
  id: string;
  /** Empty for a quiet incident. */
  alertname: string;
  /**
   * Target and identity labels the page must carry (severity and scope are not identity: they may
   * change); a value `a|b` accepts either.
   */
  labels: Record<string, string>;
  /**
   * `also=A,B{check=C}`: symptom alerts of the same problem: a page of theirs is a page of this
   * incident (a duplicate when it is not the first), not a false page. The incident's labels apply
   * to a symptom that carries them (`target` always), its own `{…}` labels besides.
   */
  also: Symptom[];
  /**
   * `quiet`: the target is not healthy on the surfaces, and nothing may page for it (a dip's notice,
   * a silenced problem, a node bootstrapping).
   */
  quiet?: true;
}

export interface Truth {
  open: Expected[];
  close: string[];
  update: Array<{ id: string; labels: Record<string, string> }>;
  /** `notice`: something scope="network" may be told to chat; never a page. */
  notice: boolean;
}

export interface ScriptEvent {
  line: number;
  at: number;
  action: string;
  args: string[];
  params: Record<string, Value>;
  truth: Truth;
  /** Set when the behaviour this event needs is not in the simulator or daemon yet. */
  pending?: string;
  text: string;
}

export type Incident = Expected & { openedBy: ScriptEvent; closedBy?: ScriptEvent };

export interface Script {
  fleet: FleetLine[];
  events: ScriptEvent[];
  /** Every incident the truth opens, by id. */
  incidents: Map<string, Incident>;
}

export const ACTIONS = ['expect', 'scenario', 'restart', 'dip', 'service', 'silence', 'unsilence', 'kill-daemon', 'start-daemon', 'shards', 'sample', 'end'] as const;
const ACTION_SET = new Set<string>(ACTIONS);
const MAX_LINES = 2000;
const MAX_LIST = 100;
/** Node scenarios that decide how the node answers at all: at most one of them at a time. */
export const TRANSPORT_SCENARIOS = new Set(['slow', 'proxy-error', 'forbidden-host', 'not-found', 'rate-limited', 'truncated', 'bad-shape', 'rpc-error', 'wrong-id', 'huge', 'reset']);

export function parseValue(text: string): Value {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  const list = /^\[(.*)\]$/.exec(text);
  if (list) {
    const items = list[1]!.split(',').map((s) => s.trim()).filter(Boolean);
    if (items.length > MAX_LIST) throw new Error(`a list of more than ${MAX_LIST} items`);
    return items.map((item) => (/^-?\d+(\.\d+)?$/.test(item) ? Number(item) : item));
  }
  return text;
}

function keyValues(words: string[], where: string): { positional: string[]; params: Record<string, Value> } {
  const positional: string[] = [];
  const params: Record<string, Value> = {};
  for (const word of words) {
    const eq = word.indexOf('=');
    if (eq > 0) {
      try {
        params[word.slice(0, eq)] = parseValue(word.slice(eq + 1));
      } catch (err) {
        throw new Error(`${where}: "${word}": ${(err as Error).message}`);
      }
    } else if (Object.keys(params).length > 0) throw new Error(`${where}: "${word}" after key=value arguments`);
    else positional.push(word);
  }
  return { positional, params };
}

/** `k=v` words as labels (kept as written: `a|b` stays one string). */
function labelsOf(words: string[], where: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const word of words) {
    const eq = word.indexOf('=');
    if (eq <= 0) throw new Error(`${where}: expected key=value, got "${word}"`);
    labels[word.slice(0, eq)] = word.slice(eq + 1);
  }
  return labels;
}

/** `A,B{check=C|D,chain=X}` → symptoms. */
export function parseSymptoms(text: string, where: string): Symptom[] {
  const symptoms: Symptom[] = [];
  const re = /\s*([A-Za-z]\w*)(?:\{([^}]*)\})?\s*(?:,|$)/y;
  let at = 0;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m || m[0].length === 0) throw new Error(`${where}: also="${text}": expected alertname[{key=value,…}],…`);
    symptoms.push({ alertname: m[1]!, labels: m[2] ? labelsOf(m[2].split(',').map((s) => s.trim()).filter(Boolean), where) : {} });
    at = re.lastIndex;
  }
  return symptoms;
}

export function parseTruth(text: string, where: string): Truth {
  const truth: Truth = { open: [], close: [], update: [], notice: false };
  for (const part of text.split(';').map((p) => p.trim()).filter(Boolean)) {
    const [verb, ...rest] = part.split(/\s+/);
    if (verb === 'none') continue;
    if (verb === 'notice') {
      truth.notice = true;
      continue;
    }
    if (verb === 'close') {
      truth.close.push(...rest.join('').split(',').filter(Boolean));
      continue;
    }
    const m = /^(\S+):$/.exec(rest[0] ?? '');
    if (!m) throw new Error(`${where}: "${part}": expected "${verb} <id>: …"`);
    if (verb === 'open') {
      const [alertname, ...words] = rest.slice(1);
      if (!alertname || !/^[A-Za-z]\w*$/.test(alertname)) throw new Error(`${where}: "${part}": open needs an alertname`);
      const { also, ...identity } = labelsOf(words, where);
      if (!identity.target) throw new Error(`${where}: "${part}": open needs target=`);
      truth.open.push({ id: m[1]!, alertname, labels: identity, also: also ? parseSymptoms(also, where) : [] });
    } else if (verb === 'quiet') {
      const labels = labelsOf(rest.slice(1), where);
      if (Object.keys(labels).join() !== 'target') throw new Error(`${where}: "${part}": quiet takes target=<name>[|<name>…] only`);
      truth.open.push({ id: m[1]!, alertname: '', labels, also: [], quiet: true });
    } else if (verb === 'update') {
      truth.update.push({ id: m[1]!, labels: labelsOf(rest.slice(1), where) });
    } else throw new Error(`${where}: unknown truth "${verb}" (none, notice, open, quiet, close, update)`);
  }
  return truth;
}

/** What an action's arguments must be, checked where the simulator or the runner could not say it well. */
function checkArgs(action: string, positional: string[], fleet: Set<string>, where: string): void {
  const node = () => {
    if (!positional[0] || !fleet.has(positional[0])) throw new Error(`${where}: ${action}: "${positional[0] ?? ''}" is not a node of the fleet`);
  };
  switch (action) {
    case 'scenario': {
      node();
      const names = (positional[1] ?? '').split('+');
      for (const name of names) if (!isScenario(name)) throw new Error(`${where}: unknown scenario "${name}"`);
      if (new Set(names).size !== names.length) throw new Error(`${where}: a scenario named twice in "${positional[1]}"`);
      if (names.filter((n) => TRANSPORT_SCENARIOS.has(n)).length > 1) throw new Error(`${where}: at most one of ${[...TRANSPORT_SCENARIOS].join(', ')} at a time`);
      if (positional.length !== 2) throw new Error(`${where}: scenario <node> <name>[+<name>…] [key=value…]`);
      return;
    }
    case 'restart':
      node();
      if (positional.length !== 1) throw new Error(`${where}: restart <node> [key=value…]`);
      return;
    case 'service':
      if (positional[0] !== 'data-api' && positional[0] !== 'metrics-api') throw new Error(`${where}: service data-api|metrics-api <scenario>`);
      if (!isServiceScenario(positional[1] ?? '')) throw new Error(`${where}: unknown service scenario "${positional[1] ?? ''}"`);
      return;
    case 'shards':
      if (!/^[1-9]\d*$/.test(positional[0] ?? '') || Number(positional[0]) > 8) throw new Error(`${where}: shards <1..8>`);
      return;
    case 'dip':
      if (positional[0] !== undefined && positional[0] !== 'off') throw new Error(`${where}: dip connectedPercent=<0..100> | dip off`);
      return;
    case 'silence':
    case 'unsilence':
      if (!positional[0]) throw new Error(`${where}: ${action} <name> …`);
      return;
  }
}

export function parseScript(text: string, name = 'week.txt'): Script {
  const lines = text.split('\n');
  if (lines.length > MAX_LINES) throw new Error(`script: more than ${MAX_LINES} lines`);
  const script: Script = { fleet: [], events: [], incidents: new Map() };
  const fleet = new Set<string>();
  lines.forEach((raw, i) => {
    const where = `${name}:${i + 1}`;
    const content = raw.replace(/(^|\s)#.*$/, '').trim();
    if (!content) return;
    if (content.startsWith('node ')) {
      const { positional, params } = keyValues(content.split(/\s+/).slice(1), where);
      if (positional.length !== 1) throw new Error(`${where}: node <name> key=value…`);
      if (fleet.has(positional[0]!)) throw new Error(`${where}: node "${positional[0]}" twice`);
      if (typeof params.scenario === 'string' && !isScenario(params.scenario)) throw new Error(`${where}: unknown scenario "${params.scenario}"`);
      fleet.add(positional[0]!);
      script.fleet.push({ name: positional[0]!, options: params });
      return;
    }
    const [body, ...tail] = content.split('=>');
    if (tail.length !== 1) throw new Error(`${where}: an event needs exactly one "=> <truth>"`);
    // ` | pending: …` ends a line; a `|` inside a label value (`check=C|P`) has no spaces around it.
    const [truthText, pendingText, ...more] = tail[0]!.split(/\s\|\s?/);
    if (more.length > 0) throw new Error(`${where}: after " | " only "pending: <issue>"`);
    const words = body!.trim().split(/\s+/);
    const at = Number(words[0]);
    if (!Number.isFinite(at) || at < 0) throw new Error(`${where}: "${words[0]}" is not a time in seconds`);
    const action = words[1] ?? '';
    if (!ACTION_SET.has(action)) throw new Error(`${where}: unknown action "${action}" (${ACTIONS.join(', ')})`);
    const previous = script.events.at(-1);
    if (previous && at < previous.at) throw new Error(`${where}: events must be in time order`);
    const { positional, params } = keyValues(words.slice(2), where);
    checkArgs(action, positional, fleet, where);
    let pending: string | undefined;
    if (pendingText !== undefined) {
      const p = /^\s*pending:\s*(.+?)\s*$/.exec(pendingText);
      if (!p) throw new Error(`${where}: after " | " only "pending: <issue>"`);
      pending = p[1]!;
    }
    const event: ScriptEvent = { line: i + 1, at, action, args: positional, params, truth: parseTruth(truthText!, where), text: words.slice(1).join(' '), ...(pending ? { pending } : {}) };
    script.events.push(event);
    if (pending) return; // a skipped event opens and closes nothing
    for (const id of [...event.truth.close, ...event.truth.update.map((u) => u.id)]) {
      const incident = script.incidents.get(id);
      if (!incident) throw new Error(`${where}: incident "${id}" was never opened`);
      if (event.truth.close.includes(id)) {
        if (incident.closedBy) throw new Error(`${where}: incident "${id}" closed twice`);
        incident.closedBy = event;
      }
    }
    // After the closes: one event may close an incident and open its successor.
    for (const open of event.truth.open) {
      if (script.incidents.has(open.id)) throw new Error(`${where}: incident "${open.id}" opened twice`);
      for (const target of open.labels.target!.split('|')) if (!fleet.has(target) && target !== 'data-api' && target !== 'metrics-api') throw new Error(`${where}: "${target}" is not a target of the week`);
      script.incidents.set(open.id, { ...open, openedBy: event });
    }
  });
  return script;
}

/** The incidents the truth holds open at `at` seconds (opened at or before, closed after). */
export function openAt(script: Script, at: number): Incident[] {
  return [...script.incidents.values()].filter((i) => i.openedBy.at <= at && (!i.closedBy || i.closedBy.at > at));
}
