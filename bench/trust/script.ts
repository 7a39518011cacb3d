/**
 * The trust benchmark's script (bench/trust/week.txt): the fleet, then one line per event, each with
 * its ground truth after `=>`. Grammar (docs in week.txt's header):
 *
 *   node <name> [key=value…]                  a simulated node (SimNodeOptions, plus role=…)
 *   <at> <action> [args…] => <truth> [| pending: <issue>]
 *
 * where <at> is seconds from the simulator's start (the week's clock), <truth> is `none`,
 * `notice`, or `;`-separated `open <id>: <alertname> key=value… [also=<alertname>,…]`, `close <id>[,<id>…]`, `update <id>: key=value…`.
 */

export type Value = string | number | boolean;

export interface FleetLine {
  name: string;
  options: Record<string, Value>;
}

export interface Expected {
  id: string;
  alertname: string;
  /** target and identity labels the page must carry (severity is not identity: it may change). */
  labels: Record<string, string>;
  /**
   * `also=A,B`: symptom alerts of the same problem (same labels): a page of theirs is a page of this
   * incident (a duplicate when it is not the first), not a false page.
   */
  also: string[];
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

export interface Script {
  fleet: FleetLine[];
  events: ScriptEvent[];
  /** Every incident the truth opens, by id. */
  incidents: Map<string, Expected & { openedBy: ScriptEvent; closedBy?: ScriptEvent }>;
}

const ACTIONS = new Set(['expect', 'scenario', 'restart', 'dip', 'service', 'silence', 'unsilence', 'kill-daemon', 'start-daemon', 'shards', 'sample', 'end']);
const MAX_LINES = 1000;

export function parseValue(text: string): Value {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text;
}

function keyValues(words: string[], where: string): { positional: string[]; params: Record<string, Value> } {
  const positional: string[] = [];
  const params: Record<string, Value> = {};
  for (const word of words) {
    const eq = word.indexOf('=');
    if (eq > 0) params[word.slice(0, eq)] = parseValue(word.slice(eq + 1));
    else if (Object.keys(params).length > 0) throw new Error(`${where}: "${word}" after key=value arguments`);
    else positional.push(word);
  }
  return { positional, params };
}

function labelsOf(words: string[], where: string): Record<string, string> {
  const { positional, params } = keyValues(words, where);
  if (positional.length > 0) throw new Error(`${where}: expected key=value, got "${positional.join(' ')}"`);
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]));
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
      const [alertname, ...labels] = rest.slice(1);
      if (!alertname || !/^[A-Za-z]\w*$/.test(alertname)) throw new Error(`${where}: "${part}": open needs an alertname`);
      const { also, ...identity } = labelsOf(labels, where);
      truth.open.push({ id: m[1]!, alertname, labels: identity, also: also ? also.split(',') : [] });
    } else if (verb === 'update') {
      truth.update.push({ id: m[1]!, labels: labelsOf(rest.slice(1), where) });
    } else throw new Error(`${where}: unknown truth "${verb}" (none, notice, open, close, update)`);
  }
  return truth;
}

export function parseScript(text: string): Script {
  const lines = text.split('\n');
  if (lines.length > MAX_LINES) throw new Error(`script: more than ${MAX_LINES} lines`);
  const script: Script = { fleet: [], events: [], incidents: new Map() };
  lines.forEach((raw, i) => {
    const where = `week.txt:${i + 1}`;
    const content = raw.replace(/(^|\s)#.*$/, '').trim();
    if (!content) return;
    if (content.startsWith('node ')) {
      const { positional, params } = keyValues(content.split(/\s+/).slice(1), where);
      if (positional.length !== 1) throw new Error(`${where}: node <name> key=value…`);
      script.fleet.push({ name: positional[0]!, options: params });
      return;
    }
    const [body, ...tail] = content.split('=>');
    if (tail.length !== 1) throw new Error(`${where}: an event needs exactly one "=> <truth>"`);
    const [truthText, pendingText] = tail[0]!.split('|');
    const words = body!.trim().split(/\s+/);
    const at = Number(words[0]);
    if (!Number.isFinite(at) || at < 0) throw new Error(`${where}: "${words[0]}" is not a time in seconds`);
    const action = words[1] ?? '';
    if (!ACTIONS.has(action)) throw new Error(`${where}: unknown action "${action}" (${[...ACTIONS].join(', ')})`);
    const previous = script.events.at(-1);
    if (previous && at < previous.at) throw new Error(`${where}: events must be in time order`);
    const { positional, params } = keyValues(words.slice(2), where);
    let pending: string | undefined;
    if (pendingText !== undefined) {
      const p = /^\s*pending:\s*(.+?)\s*$/.exec(pendingText);
      if (!p) throw new Error(`${where}: after "|" only "pending: <issue>"`);
      pending = p[1]!;
    }
    const event: ScriptEvent = { line: i + 1, at, action, args: positional, params, truth: parseTruth(truthText!, where), text: words.slice(1).join(' '), ...(pending ? { pending } : {}) };
    script.events.push(event);
    if (pending) return; // a skipped event opens and closes nothing
    for (const open of event.truth.open) {
      if (script.incidents.has(open.id)) throw new Error(`${where}: incident "${open.id}" opened twice`);
      script.incidents.set(open.id, { ...open, openedBy: event });
    }
    for (const id of [...event.truth.close, ...event.truth.update.map((u) => u.id)]) {
      const incident = script.incidents.get(id);
      if (!incident) throw new Error(`${where}: incident "${id}" was never opened`);
      if (event.truth.close.includes(id)) {
        if (incident.closedBy) throw new Error(`${where}: incident "${id}" closed twice`);
        incident.closedBy = event;
      }
    }
  });
  return script;
}

/** The incidents the truth holds open at `at` seconds (opened at or before, closed after). */
export function openAt(script: Script, at: number): Array<Expected & { openedBy: ScriptEvent; closedBy?: ScriptEvent }> {
  return [...script.incidents.values()].filter((i) => i.openedBy.at <= at && (!i.closedBy || i.closedBy.at > at));
}
