import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { AlertEngine, OUTCOME_WAIT_MS } from '../../src/alerts/engine.js';
import type { ValidatorInput } from '../../src/alerts/rules/index.js';
import type { Evaluation, NotificationBatch } from '../../src/alerts/types.js';
import { diffConfigs } from '../../src/config/diff.js';
import { parseConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { economicsOf, type ValidatorReport } from '../../src/model/validator.js';
import type { NodeTarget, ServiceTarget } from '../../src/config/load.js';
import { Store, type TargetState } from '../../src/store.js';
import { sinkInto } from '../helpers/notices.js';
import { headline } from '../../src/alerts/receivers/text.js';
import { BOOTSTRAPPING, failing, fixtureReport, HEALTHY, nodeState, serviceState, update } from '../helpers/states.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

const nodeUpdated = (engine: AlertEngine, node: NodeTarget, state: TargetState, now: number) => engine.updated(update('node', node, state), now);
const serviceUpdated = (engine: AlertEngine, service: ServiceTarget, state: TargetState, now: number) => engine.updated(update('service', service, state), now);

function setup(alerts = '', extra = '', logs?: string[], shippedDefaults = false) {
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-alerts-'));
  // One poll at a time: a firing alert resolves at its first good poll unless a test says otherwise.
  const tuned = shippedDefaults || /resolve_polls/.test(alerts) ? alerts : `  resolve_polls: 1\n${alerts}`;
  const yaml = `state_dir: ${dir}\nnodes:\n  - {name: v1, url: "http://127.0.0.1:1", labels: {env: mainnet}}\nservices:\n  - {name: data-api, kind: data-api, url: "http://127.0.0.1:2", labels: {team: data-platform}}\nalerts:\n${tuned}${extra}`;
  const config = parseConfig(yaml, join(dir, 'config.yaml'), {});
  const batches: NotificationBatch[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => logs?.push(...chunk.toString().split('\n').filter(Boolean)));
  const log = createLogger({ level: logs ? 'info' : 'silent', format: 'json', destination: stream });
  const make = () => new AlertEngine(config, { log, sink: sinkInto(batches) });
  const engine = make();
  const node = config.nodes[0]!;
  const service = config.services[0]!;
  const notices = () => batches.flatMap((b) => b.alerts.map((a) => `${a.kind} ${a.labels.alertname}${a.labels.check ? `/${a.labels.check}` : ''}${a.labels.component ? `/${a.labels.component}` : ''} ${a.labels.severity}`));
  return { config, engine, node, service, batches, notices, make, dir };
}

describe('alert state machine', () => {
  it('a failing check fires after for_polls (2) polls, with its facts, and resolves once', () => {
    const { engine, node, batches, notices } = setup();
    nodeUpdated(engine, node, nodeState('v1', failing({ network: 0 })), T0);
    expect(batches).toEqual([]);
    expect(engine.list().map((a) => [a.alertname, a.phase])).toEqual([
      ['AvalancheNodeUnhealthy', 'pending'],
      ['AvalancheCheckFailing', 'pending'],
    ]);
    nodeUpdated(engine, node, nodeState('v1', failing({ network: 0 })), T0 + 15_000);
    // one page per problem: the failing check pages by name, "v1 is unhealthy" is held back (policy.ts)
    expect(notices()).toEqual(['firing AvalancheCheckFailing/network warning']);
    expect(engine.list().find((a) => a.alertname === 'AvalancheNodeUnhealthy')).toMatchObject({ phase: 'firing', inhibitedBy: 'AvalancheCheckFailing' });
    const check = batches[0]!.alerts[0]!;
    expect(check).toMatchObject({
      status: 'firing',
      labels: { alertname: 'AvalancheCheckFailing', target: 'v1', check: 'network', severity: 'warning', env: 'mainnet' },
      annotations: { summary: 'v1: check network failing', description: 'network is failing' },
      startsAt: new Date(T0 + 15_000).toISOString(),
      endsAt: '0001-01-01T00:00:00Z',
    });
    expect(check.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    nodeUpdated(engine, node, nodeState('v1', failing({ network: 0 })), T0 + 30_000);
    expect(batches).toHaveLength(1); // still firing: nothing new
    nodeUpdated(engine, node, nodeState('v1', HEALTHY()), T0 + 45_000);
    expect(notices().slice(1)).toEqual(['resolved AvalancheCheckFailing/network warning']); // the held Unhealthy was never told: nothing to take back
    expect(batches[1]!.alerts[0]).toMatchObject({ status: 'resolved', fingerprint: check.fingerprint, endsAt: new Date(T0 + 45_000).toISOString() });
    expect(engine.list()).toEqual([]);
  });

  it("the node's own contiguousFailures fire at once (they survive our restarts)", () => {
    const { engine, node, notices } = setup();
    nodeUpdated(engine, node, nodeState('v1', failing({ network: 7 })), T0);
    expect(notices()).toEqual(['firing AvalancheCheckFailing/network warning']);
  });

  it('escalates to critical after critical_after, and reminds at repeat_interval', () => {
    const { engine, node, notices } = setup('  repeat_interval: 1h\n  rules:\n    AvalancheCheckFailing: {critical_after: 10m}\n    AvalancheNodeUnhealthy: {disabled: true}\n');
    const poll = (t: number) => nodeUpdated(engine, node, nodeState('v1', failing({ network: 5 })), t);
    poll(T0);
    poll(T0 + 9 * MIN);
    poll(T0 + 11 * MIN);
    poll(T0 + 30 * MIN);
    poll(T0 + 72 * MIN);
    expect(notices()).toEqual(['firing AvalancheCheckFailing/network warning', 'severity_changed AvalancheCheckFailing/network critical', 'reminder AvalancheCheckFailing/network critical']);
  });

  it('an unreachable node pages once, and its check alerts neither resolve nor re-fire meanwhile', () => {
    const { engine, node, notices } = setup();
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 5 })), T0);
    expect(notices()).toEqual(['firing AvalancheCheckFailing/C warning']); // the node counted 5 failures
    const down = nodeState('v1', { reason: 'connect', error: 'connection refused (ECONNREFUSED)' });
    nodeUpdated(engine, node, down, T0 + MIN);
    nodeUpdated(engine, node, down, T0 + 2 * MIN);
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 8 })), T0 + 3 * MIN);
    // Unhealthy was pending at the outage and completes its second failing poll after it, held back by C, which stayed firing throughout.
    expect(notices().slice(1)).toEqual(['firing AvalancheNodeUnreachable warning', 'resolved AvalancheNodeUnreachable warning']);
    expect(engine.list().find((a) => a.labels.check === 'C')?.phase).toBe('firing');
  });

  it('a bootstrapping node does not page for its chain checks; NotReady fires after the grace period', () => {
    const { engine, node, notices } = setup('  bootstrap_grace: 20m\n');
    const poll = (t: number) => nodeUpdated(engine, node, nodeState('v1', BOOTSTRAPPING(), false), t);
    poll(T0);
    poll(T0 + MIN);
    // network is not a chain check: it pages (the node counted 7 failures); the disk at 9% pages as DiskLow
    // (Unhealthy is held back: the failing network check pages by name)
    expect(notices()).toEqual(['firing AvalancheCheckFailing/network warning', 'firing AvalancheDiskLow critical']);
    poll(T0 + 21 * MIN);
    expect(notices().slice(2)).toEqual(['firing AvalancheNodeNotReady warning']);
    expect(engine.list().some((a) => a.labels.check === 'C' || a.labels.check === 'bootstrapped')).toBe(false);
  });

  it('"not yet run" checks after a restart never page', () => {
    const { engine, node, notices } = setup();
    const fresh = fixtureReport('shutting-down.json'); // shuttingDown: not yet run
    nodeUpdated(engine, node, nodeState('v1', fresh), T0);
    nodeUpdated(engine, node, nodeState('v1', fresh), T0 + MIN);
    nodeUpdated(engine, node, nodeState('v1', fresh), T0 + 2 * MIN);
    expect(notices()).toEqual([]);
  });

  it('a flapping check stops notifying on every flip, then reports its state once stable', () => {
    const { engine, node, notices } = setup('  for_polls: 1\n  flap_threshold: 4\n  flap_window: 10m\n  rules:\n    AvalancheNodeUnhealthy: {disabled: true}\n');
    for (let i = 0; i < 10; i++) nodeUpdated(engine, node, nodeState('v1', i % 2 === 0 ? failing({ C: 1 }) : HEALTHY()), T0 + i * 30_000);
    // fired and resolved twice, then held: the 3rd firing would be the 5th transition
    expect(notices()).toEqual([
      'firing AvalancheCheckFailing/C warning',
      'resolved AvalancheCheckFailing/C warning',
      'firing AvalancheCheckFailing/C warning',
      'resolved AvalancheCheckFailing/C warning',
    ]);
    // failing and stable for longer than the window: one notification
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0 + 10 * 30_000);
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0 + 10 * 30_000 + 11 * MIN);
    expect(notices().slice(4)).toEqual(['firing AvalancheCheckFailing/C warning']);
  });

  it('by default a check failing every other 30 s health run, polled every 15 s, is one incident (resolve_polls 3)', () => {
    const { engine, node, notices, config } = setup('  rules:\n    AvalancheNodeUnhealthy: {disabled: true}\n', '', undefined, true);
    expect(config.alerts.resolvePolls).toBe(3);
    // AvalancheGo's --health-check-frequency is 30 s: each result is seen by two polls
    for (let i = 0; i < 12; i++) nodeUpdated(engine, node, nodeState('v1', Math.floor(i / 2) % 2 === 0 ? failing({ C: 1 }) : HEALTHY()), T0 + i * 15_000);
    expect(notices()).toEqual(['firing AvalancheCheckFailing/C warning']);
    for (let i = 12; i < 15; i++) nodeUpdated(engine, node, nodeState('v1', HEALTHY()), T0 + i * 15_000);
    expect(notices()).toEqual(['firing AvalancheCheckFailing/C warning', 'resolved AvalancheCheckFailing/C warning']);
  });

  /** A validator whose chains all fail (0 % of stake connected), polled every 5 s; each state held 70 s (14 polls). */
  const downUp = (engine: AlertEngine, node: NodeTarget, phases: boolean[], { from = 0, onPoll }: { from?: number; onPoll?: (poll: number, now: number) => void } = {}) => {
    let poll = from;
    for (const down of phases) {
      for (let i = 0; i < 14; i++, poll++) {
        onPoll?.(poll, T0 + poll * 5000);
        nodeUpdated(engine, node, nodeState('v1', down ? failing({ C: 1, P: 1, X: 1 }) : HEALTHY()), T0 + poll * 5000);
      }
    }
    return poll;
  };

  it('damping never hides a sustained outage: changes under a silence do not count, so the third outage pages at once', () => {
    // shipped defaults: for_polls 2, resolve_polls 3, flap_threshold 4 within 30m
    const { engine, node, batches } = setup('  rules:\n    AvalancheNodeUnhealthy: {disabled: true}\n', '', undefined, true);
    const told = () => batches.flatMap((b) => b.alerts.filter((a) => a.labels.check === 'C').map((a) => `${a.kind} @${(b.createdAt - T0) / 5000}`));
    // down, up, down under a silence, up (the silence ends with it), down again
    const silenceAt = 28;
    const silenceEnds = 56;
    downUp(engine, node, [true, false, true, false, true], {
      onPoll: (poll, now) => {
        if (poll === silenceAt) engine.silences.add({ matchers: { target: 'v1' }, endsAt: T0 + silenceEnds * 5000 - 1 }, now);
      },
    });
    // the third outage (polls 56…69) fires at its second poll, 57, and is told then, at every receiver
    expect(told()).toEqual(['firing @1', 'resolved @16', 'firing @57']);
    expect(engine.list().find((a) => a.labels.check === 'C')).toMatchObject({ phase: 'firing', state: 'firing' });
    expect(engine.firing(T0 + 69 * 5000).map((a) => a.labels.check)).toEqual(['C', 'P', 'X']); // re-sent to Alertmanager too
  });

  it('a flapping failure that holds flap_sustained_polls polls, or turns critical, pages whatever the flap count', () => {
    const sustained = setup('  for_polls: 2\n  flap_threshold: 4\n  flap_window: 30m\n  flap_sustained_polls: 10\n  rules:\n    AvalancheNodeUnhealthy: {disabled: true}\n', '', undefined);
    const { engine, node, batches } = sustained;
    const firstPollOf = (batch: NotificationBatch) => (batch.createdAt - T0) / 5000;
    const told = () => batches.filter((b) => b.alerts.some((a) => a.labels.check === 'C')).map((b) => `${b.alerts.find((a) => a.labels.check === 'C')!.kind} @${firstPollOf(b)}`);
    // down, up, down, up: four changes told; the fifth (down again) is a flap: held …
    downUp(engine, node, [true, false, true, false, true]);
    expect(told()).toEqual(['firing @1', 'resolved @14', 'firing @29', 'resolved @42', 'firing @65']);
    // (for_polls 2, resolve_polls 1: each change after its hold; the fifth one paged at its tenth failing poll, not its second)
    expect(told().at(-1)).toBe(`firing @${56 + 10 - 1}`);

    // The same with a failure that turns critical before it has held ten polls: paged as it rises.
    const critical = setup('  for_polls: 2\n  flap_threshold: 4\n  flap_window: 30m\n  flap_sustained_polls: 100\n  rules:\n    AvalancheNodeUnhealthy: {disabled: true}\n    AvalancheCheckFailing: {critical_after: 20s}\n');
    downUp(critical.engine, critical.node, [true, false, true, false, true]);
    const last = critical.batches.at(-1)!;
    expect(last.alerts.filter((a) => a.labels.check === 'C').map((a) => `${a.kind} ${a.labels.severity}`)).toEqual(['firing critical']);
    expect(firstPollOf(last)).toBe(57 + 4); // fired (held) at 57, critical 20 s later
    expect(critical.engine.list().find((a) => a.labels.check === 'C')!.state).toBe('firing');
  });

  it('a flap hold is visible: state flapping while held, a log line when it begins and when it ends', () => {
    const logs: string[] = [];
    const { engine, node, notices } = setup('  for_polls: 1\n  flap_threshold: 2\n  flap_window: 10m\n  rules:\n    AvalancheNodeUnhealthy: {disabled: true}\n', '', logs);
    const held = () => engine.list().map((a) => `${a.labels.check} ${a.phase} ${a.state}`);
    const said = () => logs.map((l) => JSON.parse(l) as { msg: string; alertname?: string }).filter((l) => l.alertname).map((l) => l.msg.split(':')[0]);
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0);
    expect(held()).toEqual(['C firing firing']);
    nodeUpdated(engine, node, nodeState('v1', HEALTHY()), T0 + 30_000);
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0 + 60_000); // third change: held
    expect(held()).toEqual(['C firing flapping']);
    expect(engine.firing(T0 + 60_000)).toEqual([]); // not re-sent to Alertmanager either
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0 + 90_000);
    expect(said()).toEqual(['alert is flapping']); // once per hold, not per poll
    // failing and stable for the window: told once, the hold ends
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0 + 60_000 + 11 * MIN);
    expect(held()).toEqual(['C firing firing']);
    expect(said()).toEqual(['alert is flapping', 'alert stopped flapping']);
    // resolved, fired, resolved again: the third change is held, and a held resolve stays listed as flapping
    for (const [i, report] of [HEALTHY(), failing({ C: 1 }), HEALTHY()].entries()) nodeUpdated(engine, node, nodeState('v1', report), T0 + 20 * MIN + i * 30_000);
    expect(said()).toEqual(['alert is flapping', 'alert stopped flapping', 'alert is flapping']);
    expect(held()).toEqual(['C resolved flapping']);
    const told = notices().length;
    nodeUpdated(engine, node, nodeState('v1', HEALTHY()), T0 + 32 * MIN);
    expect(notices().slice(told)).toEqual(['resolved AvalancheCheckFailing/C warning']); // told once, when the hold ends
    expect(held()).toEqual([]);
    expect(said()).toEqual(['alert is flapping', 'alert stopped flapping', 'alert is flapping', 'alert stopped flapping']);
  });

  it('Alertmanager re-sends only what receivers were told and the gate lets through', () => {
    const { engine, node } = setup(`  silences:\n    - {matchers: {check: X}, ends_at: "${new Date(T0 + 10 * MIN).toISOString()}"}\n`);
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 3, X: 3 })), T0);
    // C told; X silenced; Unhealthy still pending (it needs our second poll)
    expect(engine.firing(T0).map((a) => `${a.labels.alertname}/${a.labels.check ?? ''}`)).toEqual(['AvalancheCheckFailing/C']);
    // the silence is over, but X has not been told yet: it is told (and then re-sent) from the next evaluation
    expect(engine.firing(T0 + 11 * MIN).map((a) => a.labels.check)).toEqual(['C']);
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 4, X: 4 })), T0 + 11 * MIN);
    expect(engine.firing(T0 + 11 * MIN).map((a) => `${a.labels.alertname}/${a.labels.check ?? ''}`)).toEqual(['AvalancheCheckFailing/C', 'AvalancheCheckFailing/X']);
  });

  it('a silence holds notifications; when it ends, a still-firing alert is announced', () => {
    const { engine, node, notices } = setup(`  silences:\n    - {matchers: {target: v1, alertname: "~Avalanche(Check|Node).*"}, ends_at: "${new Date(T0 + 10 * MIN).toISOString()}"}\n`);
    nodeUpdated(engine, node, nodeState('v1', failing({ X: 3 })), T0);
    nodeUpdated(engine, node, nodeState('v1', failing({ X: 3 })), T0 + 5 * MIN);
    expect(notices()).toEqual([]);
    nodeUpdated(engine, node, nodeState('v1', failing({ X: 3 })), T0 + 11 * MIN);
    expect(notices()).toEqual(['firing AvalancheCheckFailing/X warning']);
  });

  it('an alert that fires again before its held resolve was told keeps the startsAt receivers have open', () => {
    const { engine, node, batches } = setup('  for_polls: 1\n  rules:\n    AvalancheCheckFailing: {critical_after: 10m}\n    AvalancheNodeUnhealthy: {disabled: true}\n');
    nodeUpdated(engine, node, nodeState('v1', failing({ network: 1 })), T0);
    engine.silences.add({ matchers: { target: 'v1' }, endsAt: T0 + 30 * MIN }, T0 + MIN);
    nodeUpdated(engine, node, nodeState('v1', HEALTHY()), T0 + 2 * MIN); // resolve held by the silence
    nodeUpdated(engine, node, nodeState('v1', failing({ network: 1 })), T0 + 3 * MIN); // fires again, still held
    nodeUpdated(engine, node, nodeState('v1', failing({ network: 1 })), T0 + 31 * MIN); // silence over, escalated
    nodeUpdated(engine, node, nodeState('v1', HEALTHY()), T0 + 32 * MIN);
    const told = batches.flatMap((b) => b.alerts.map((a) => `${a.kind} ${a.labels.severity} ${a.startsAt}`));
    const startsAt = new Date(T0).toISOString();
    expect(told).toEqual([`firing warning ${startsAt}`, `severity_changed critical ${startsAt}`, `resolved critical ${startsAt}`]);
  });

  it('an alert that fires and resolves inside a silence is never announced', () => {
    const { engine, node, notices } = setup();
    engine.silences.add({ matchers: { target: 'v1' }, endsAt: T0 + 60 * MIN }, T0);
    nodeUpdated(engine, node, nodeState('v1', failing({ X: 3 })), T0);
    nodeUpdated(engine, node, nodeState('v1', HEALTHY()), T0 + MIN);
    nodeUpdated(engine, node, nodeState('v1', HEALTHY()), T0 + 61 * MIN);
    expect(notices()).toEqual([]);
    expect(engine.list()).toEqual([]);
  });

  it('maintenance windows hold notifications while open', () => {
    // a window opening every day at 11:00 UTC for two hours: T0 (12:00) is inside it
    const { engine, node, notices } = setup('  maintenance:\n    - {matchers: {target: v1}, schedule: "0 0 11 * * *", duration: 2h}\n');
    nodeUpdated(engine, node, nodeState('v1', failing({ P: 4 })), T0);
    expect(notices()).toEqual([]);
    nodeUpdated(engine, node, nodeState('v1', failing({ P: 4 })), T0 + 61 * MIN);
    // P fired at once (the node counted 4 failures) and, held for an hour, has escalated (critical_after 30m);
    // Unhealthy needed our second poll, so it only starts firing now
    expect(notices()).toEqual(['firing AvalancheCheckFailing/P critical']);
  });

  it("per-target tuning stays the target's own while the other targets share the fleet's settings, whichever is evaluated first", () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-alerts-'));
    const nodes = ['v1', 'v2', 'v3'].map((name, i) => `  - {name: ${name}, url: "http://127.0.0.1:${i + 1}"}`).join('\n');
    const config = parseConfig(`state_dir: ${dir}\nnodes:\n${nodes}\nalerts:\n  for_polls: 1\n  targets:\n    v2:\n      rules:\n        AvalancheCheckFailing: {disabled: true}\n`, join(dir, 'config.yaml'), {});
    const batches: NotificationBatch[] = [];
    const engine = new AlertEngine(config, { log: createLogger({ level: 'silent', format: 'json' }), sink: sinkInto(batches) });
    for (const node of [config.nodes[0]!, config.nodes[1]!, config.nodes[2]!]) nodeUpdated(engine, node, nodeState(node.name, failing({ C: 5 })), T0);
    const fired = batches.flatMap((b) => b.alerts.map((a) => `${a.labels.target} ${a.labels.alertname}`)).sort();
    // v2 has no check alert: "v2 is unhealthy" is its one page; v1 and v3 page the check by name
    expect(fired).toEqual(['v1 AvalancheCheckFailing', 'v2 AvalancheNodeUnhealthy', 'v3 AvalancheCheckFailing']);
  });

  it('per-target tuning: disabled for one target only', () => {
    const { engine, node, notices } = setup('  targets:\n    v1:\n      rules:\n        AvalancheCheckFailing: {disabled: true}\n');
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 5 })), T0);
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 5 })), T0 + MIN);
    expect(notices()).toEqual(['firing AvalancheNodeUnhealthy warning']);
  });

  it('states survive a restart: a firing alert is not re-announced, and its resolve still comes', () => {
    const { engine, node, notices, make } = setup();
    nodeUpdated(engine, node, nodeState('v1', failing({ network: 4 })), T0);
    expect(notices()).toEqual(['firing AvalancheCheckFailing/network warning']);
    engine.flush(); // what a clean stop does; a crash is covered by the crash tests
    const restarted = make();
    expect(restarted.list().map((a) => [a.alertname, a.phase])).toEqual([
      ['AvalancheNodeUnhealthy', 'pending'],
      ['AvalancheCheckFailing', 'firing'],
    ]);
    nodeUpdated(restarted, node, nodeState('v1', failing({ network: 5 })), T0 + MIN);
    expect(notices()).toHaveLength(1); // not re-announced (and Unhealthy, firing now, is held back by the check)
    nodeUpdated(restarted, node, nodeState('v1', HEALTHY()), T0 + 2 * MIN);
    expect(notices().slice(1)).toEqual(['resolved AvalancheCheckFailing/network warning']);
  });

  it('a held resolve of a target removed from the config is told at once (it can no longer flap)', () => {
    const { engine, node, notices } = setup('  for_polls: 1\n  flap_threshold: 2\n  flap_window: 10m\n  rules:\n    AvalancheNodeUnhealthy: {disabled: true}\n');
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0);
    // resolved, fired and resolved again within the window: the last resolve is held
    for (const [i, report] of [HEALTHY(), failing({ C: 1 }), HEALTHY()].entries()) nodeUpdated(engine, node, nodeState('v1', report), T0 + 11 * MIN + i * 30_000);
    expect(engine.list().map((a) => `${a.phase} ${a.state}`)).toEqual(['resolved flapping']);
    expect(notices()).toHaveLength(3);
    engine.removeTarget('v1', T0 + 13 * MIN);
    expect(notices().slice(3)).toEqual(['resolved AvalancheCheckFailing/C warning']);
    expect(engine.list()).toEqual([]);
  });

  it('a page closed despite its hold names the hold in the log: the silence, the maintenance window, or flapping', () => {
    const closed = (alerts: string, hold: (engine: AlertEngine, node: NodeTarget) => void) => {
      const logs: string[] = [];
      const { engine, node, notices } = setup(`  for_polls: 1\n  flap_threshold: 2\n  flap_window: 10m\n  rules:\n    AvalancheNodeUnhealthy: {disabled: true}\n${alerts}`, '', logs);
      nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0);
      hold(engine, node);
      engine.removeTarget('v1', T0 + 13 * MIN);
      expect(notices().at(-1)).toBe('resolved AvalancheCheckFailing/C warning');
      const lines = logs.map((l) => JSON.parse(l) as { msg: string; heldBy?: string; alertname?: string }).filter((l) => l.msg.startsWith('alert of a target that left the config resolved despite'));
      return lines.map((l) => `${l.alertname} ${l.heldBy}`);
    };
    let id = '';
    expect(closed('', (engine) => (id = engine.silences.add({ matchers: { target: 'v1' }, endsAt: T0 + 60 * MIN }, T0 + MIN).id))).toEqual([`AvalancheCheckFailing silenced (${id})`]);
    // a window opening every day at 12:10 UTC for an hour: open when the target leaves (12:13), not when it fired (12:00)
    expect(closed('  maintenance:\n    - {matchers: {target: v1}, schedule: "0 10 12 * * *", duration: 1h}\n', () => {})).toEqual(['AvalancheCheckFailing maintenance window']);
    // resolved, fired and resolved again within the window: the last resolve is held
    const flap = (engine: AlertEngine, node: NodeTarget) => {
      for (const [i, report] of [HEALTHY(), failing({ C: 1 }), HEALTHY()].entries()) nodeUpdated(engine, node, nodeState('v1', report), T0 + 11 * MIN + i * 30_000);
    };
    expect(closed('', flap)).toEqual(['AvalancheCheckFailing flapping']);
    // nothing holds it: no such line
    expect(closed('', () => {})).toEqual([]);
  });

  it('a target removed while flapping leaves no flap history: back in the config, its next failure pages at once', () => {
    const { engine, node, notices } = setup('  for_polls: 1\n  flap_threshold: 2\n  flap_window: 30m\n  rules:\n    AvalancheNodeUnhealthy: {disabled: true}\n');
    for (const [i, report] of [failing({ C: 1 }), HEALTHY(), failing({ C: 1 })].entries()) nodeUpdated(engine, node, nodeState('v1', report), T0 + i * 30_000);
    expect(engine.list().map((a) => a.state)).toEqual(['flapping']);
    engine.removeTarget('v1', T0 + 2 * MIN);
    expect(notices()).toEqual(['firing AvalancheCheckFailing/C warning', 'resolved AvalancheCheckFailing/C warning']);
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0 + 3 * MIN);
    expect(notices().slice(2)).toEqual(['firing AvalancheCheckFailing/C warning']);
  });

  it('a target removed from the config has its alerts resolved', () => {
    const { engine, node, notices } = setup();
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 5 })), T0);
    engine.removeTarget('v1', T0 + MIN);
    expect(notices()).toEqual(['firing AvalancheCheckFailing/C warning', 'resolved AvalancheCheckFailing/C warning']);
  });

  it('DiskLow fires from the trend before the node reaches its own 10% warning', () => {
    const { engine, node, notices } = setup('  rules:\n    AvalancheNodeUnhealthy: {disabled: true}\n');
    const withDisk = (ratio: number) => ({
      healthy: true,
      checks: HEALTHY().checks.map((c) => (c.name === 'diskspace' ? { ...c, disk: { availableBytes: ratio * 3e12, availableRatio: ratio } } : c)),
    });
    // 30% free, falling a point every 2 minutes: 10% is 40 minutes away
    for (let i = 0; i <= 10; i++) nodeUpdated(engine, node, nodeState('v1', withDisk(0.3 - i * 0.01)), T0 + i * 2 * MIN);
    expect(notices()).toEqual(['firing AvalancheDiskLow critical']);
    const batch = engine.list().find((a) => a.alertname === 'AvalancheDiskLow')!;
    expect(batch.annotations.description).toMatch(/reaches the node's 10% warning in \d+m/);
  });

  it('service rules: unhealthy and component down; a rate-limited poll changes nothing', () => {
    const { engine, service, notices, batches } = setup();
    const degraded = { status: 'error', healthy: false, components: [{ name: 'database', up: true, status: 'up' }, { name: 'cache', up: false, status: 'down', message: 'Connection is closed.' }], message: 'down: cache: Connection is closed.' };
    serviceUpdated(engine, service, serviceState('data-api', degraded), T0);
    serviceUpdated(engine, service, serviceState('data-api', degraded), T0 + MIN);
    // one page per problem: the service is unhealthy because its cache is down (its text names it)
    expect(notices()).toEqual(['firing AvalancheServiceUnhealthy warning']);
    // a service's own labels ride on its alerts, as a node's do (receivers route on them)
    expect(batches[0]!.alerts[0]!.labels).toMatchObject({ target: 'data-api', team: 'data-platform' });
    expect(engine.list().find((a) => a.alertname === 'AvalancheServiceComponentDown')).toMatchObject({ phase: 'firing', inhibitedBy: 'AvalancheServiceUnhealthy' });
    serviceUpdated(engine, service, serviceState('data-api', { reason: 'rate_limited', error: 'rate limited' }), T0 + 2 * MIN);
    expect(notices()).toHaveLength(1);
    serviceUpdated(engine, service, serviceState('data-api', { status: 'ok', healthy: true, components: [] }), T0 + 3 * MIN);
    expect(notices().slice(1)).toEqual(['resolved AvalancheServiceUnhealthy warning']);
  });

  it("chain data rules: height lag by blocks (a validation ending is the validator poll's: no chain data needed)", () => {
    const { engine, node, notices } = setup('  for_polls: 1\n');
    const snapshot = { chains: new Map(), networks: new Map(), errors: [], validators: new Map([['NodeID-x', { nodeId: 'NodeID-x', target: 'v1', status: 'active' as const, endTimestamp: T0 / 1000 + 2 * 86400, checkedAt: 0 }]]) };
    const lags = () => [{ target: 'v1', chain: 'C', lagBlocks: 600 }, { target: 'v1', chain: 'P', lagBlocks: 10 }];
    engine.updated(update('node', node, nodeState('v1', HEALTHY()), { lags, chainData: snapshot }), T0);
    engine.updated(update('chaindata', node, undefined, { chainData: snapshot }), T0);
    expect(notices()).toEqual(['firing AvalancheNodeHeightLag critical']);
    expect(engine.list().find((a) => a.alertname === 'AvalancheNodeHeightLag')!.labels.chain).toBe('C');
  });

  it('follows the store: what it holds at once, then each report feeding only its own sources', () => {
    const { engine, notices } = setup('  for_polls: 1\n');
    const store = new Store();
    store.record(nodeState('v1', failing({ C: 5 })).observation);
    engine.attach(store);
    expect(notices()).toEqual(['firing AvalancheCheckFailing/C warning']);
    store.record(serviceState('data-api', { reason: 'connect', error: 'connection refused' }).observation);
    expect(notices().slice(1)).toEqual(['firing AvalancheServiceUnhealthy warning']);
    // A validator job's report feeds the validator rules only: the node's own alerts stay as they are.
    store.record({ target: 'v1', kind: 'node', source: 'validator', at: 0, endpoints: [] });
    store.dropSource('v1', 'validator');
    expect(notices()).toHaveLength(2);
    store.record(nodeState('v1', HEALTHY()).observation);
    expect(notices().slice(2)).toEqual(['resolved AvalancheCheckFailing/C warning']);
  });
});

describe('AvalancheValidatorEndingSoon: from the validator poll, ended at endTime', () => {
  const END = T0 / 1000 + 2 * 86400;
  const REWARD = 117_431_493_426;
  /** The validator poll's report at `now` (ms): the validation (nextPeriod: getCurrentValidators, vms/platformvm/api/validator.go), or its removal. */
  const polled = (now: number, report: Partial<ValidatorReport>): ValidatorInput => {
    const full: ValidatorReport = { l1: [], problems: [], nodeId: 'NodeID-x', uptime: { rewardingStakeRatio: 0.99, weightedAverageRatio: 0.99 }, ...report };
    full.economics = economicsOf(full, now / 1000);
    return { observation: { endpoint: 'validator', view: 'all', ok: true, durationSeconds: 0, at: now / 1000, detail: full } };
  };
  const validation = (nextPeriodSeconds?: number) => ({
    primary: { txId: 'tx1', startTime: END - 14 * 86400, endTime: END, potentialRewardNAvax: REWARD, ...(nextPeriodSeconds !== undefined ? { autoRenewal: { nextPeriodSeconds, renews: nextPeriodSeconds > 0, autoCompoundRatio: 0, authorityAddresses: [] } } : {}) },
  });

  it('without chain data: quiet for a validator that renews, pages for one that exits', () => {
    const { engine, notices } = setup('  for_polls: 1\n');
    engine.observe('validator', 'v1', polled(T0, validation(14 * 86400)), T0);
    expect(notices()).toEqual([]);
    engine.observe('validator', 'v1', polled(T0 + MIN, validation(0)), T0 + MIN);
    expect(notices()).toEqual(['firing AvalancheValidatorEndingSoon warning']);
    expect(engine.list()[0]!.annotations.description).toContain('set a next period with SetAutoRenewedValidatorConfigTx or re-stake');
  });

  it("ends at the first poll after endTime, not resolve_polls later, with the period's outcome (proposal_tx_executor.go: removed, reward UTXOs)", () => {
    const { engine, notices, batches } = setup('  for_polls: 1\n  resolve_polls: 3\n');
    engine.observe('validator', 'v1', polled(T0, validation()), T0);
    expect(notices()).toEqual(['firing AvalancheValidatorEndingSoon warning']);
    const after = END * 1000 + 10_000;
    const outcome = { txId: 'tx1', startTime: END - 14 * 86400, endTime: END, potentialRewardNAvax: REWARD, renews: false, autoRenewed: false, rewarded: true, validationRewardNAvax: REWARD, evidence: 'platform.getRewardUTXOs', decidedAt: END + 10 };
    engine.observe('validator', 'v1', polled(after, { notValidator: true, periods: { outcomes: [outcome] } }), after);
    expect(notices()).toEqual(['firing AvalancheValidatorEndingSoon warning', 'resolved AvalancheValidatorEndingSoon warning']);
    expect(batches.at(-1)!.alerts[0]!.annotations.summary).toBe('v1: validation period ended, paid 117.4 AVAX');
  });

  it("the reward and budget alerts end with the period too, with its outcome, never \"no longer at risk\" or \"recovered\"", () => {
    const { engine, batches } = setup('  for_polls: 1\n  resolve_polls: 3\n');
    const low = { uptime: { rewardingStakeRatio: 0.3, weightedAverageRatio: 0.6 } };
    engine.observe('validator', 'v1', polled(T0, { ...validation(), ...low }), T0);
    expect(engine.list().map((a) => a.alertname)).toContain('AvalancheValidatorRewardAtRisk');
    const after = END * 1000 + 10_000;
    const outcome = { txId: 'tx1', startTime: END - 14 * 86400, endTime: END, potentialRewardNAvax: REWARD, renews: false, autoRenewed: false, rewarded: false, validationRewardNAvax: 0, evidence: 'platform.getRewardUTXOs', decidedAt: END + 10 };
    engine.observe('validator', 'v1', polled(after, { notValidator: true, periods: { outcomes: [outcome] } }), after);
    const last = batches.at(-1)!;
    const resolved = last.alerts.filter((a) => a.status === 'resolved');
    expect(resolved.map((a) => a.labels.alertname).sort()).toEqual(['AvalancheValidatorEndingSoon', 'AvalancheValidatorRewardAtRisk']);
    for (const a of resolved) expect(a.annotations.summary).toBe('v1: validation period ended unpaid: 117.4 AVAX forfeited');
    expect(headline(last)).not.toMatch(/no longer at risk|recovered/);
  });
});

describe('alert identity', () => {
  const SUBNET = 'csu12v5GV2hVy5gLTGap8zJNX2q6Ka4cKZ4Xfyq6sqh7GtpPB';
  const A = '2H7pEcXNnmKpYZ6VxNY2nRZ6Kx1BT2qgcM8J9o8zWLgqDTN5E8';
  const B = '29VTdXzE3N4dFQq3Zb3xqnhxZjTAGcJPFMjQSgSNwAjPAkXFYG';
  /** A validator poll of v1 with its L1 validations (balances in nAVAX) at 512 nAVAX/s. */
  const poll = (balances: Record<string, number>): ValidatorInput => {
    const l1 = Object.entries(balances).map(([validationId, balanceNAvax]) => ({ subnetId: SUBNET, validationId, balanceNAvax }));
    const report: ValidatorReport = { l1, problems: [], feeState: { priceNAvaxPerSecond: 512 } };
    report.economics = economicsOf(report, T0 / 1000);
    return { observation: { endpoint: 'validator', view: 'all', ok: true, durationSeconds: 0, at: T0 / 1000, detail: report } };
  };
  const l1Notices = (batches: NotificationBatch[]) => batches.flatMap((b) => b.alerts.map((a) => `${a.kind} ${a.labels.alertname} ${a.labels.validation_id}`));

  it('every identity label a rule gives is part of the key: two inactive L1 validations are two alerts', () => {
    const { engine, batches } = setup('  for_polls: 1\n');
    engine.observe('validator', 'v1', poll({ [A]: 0, [B]: 0 }), T0);
    expect(l1Notices(batches)).toEqual([`firing AvalancheL1ValidatorInactive ${A}`, `firing AvalancheL1ValidatorInactive ${B}`]);
    const [first, second] = engine.list();
    expect(first!.fingerprint).not.toBe(second!.fingerprint);
    // each alert's labels and text name the same validation
    for (const alert of engine.list()) expect(alert.annotations.description).toContain(alert.labels.validation_id);
  });

  it('topping up one validation while the other runs dry resolves the one and fires the other', () => {
    const { engine, batches } = setup('  for_polls: 1\n  resolve_polls: 1\n');
    engine.observe('validator', 'v1', poll({ [A]: 0, [B]: 10 * 86_400 * 512 }), T0);
    expect(l1Notices(batches)).toEqual([`firing AvalancheL1ValidatorBalanceLow ${B}`, `firing AvalancheL1ValidatorInactive ${A}`]);
    engine.observe('validator', 'v1', poll({ [A]: 30 * 86_400 * 512, [B]: 0 }), T0 + MIN);
    expect(l1Notices(batches).slice(2).sort()).toEqual([`firing AvalancheL1ValidatorInactive ${B}`, `resolved AvalancheL1ValidatorBalanceLow ${B}`, `resolved AvalancheL1ValidatorInactive ${A}`]);
  });

  const atRisk = (target: string, scope: string | undefined): Evaluation => ({
    target,
    covers: ['AvalancheValidatorRewardAtRisk'],
    unknown: [],
    conditions: scope ? [{ alertname: 'AvalancheValidatorRewardAtRisk', target, identity: { scope }, severity: 'warning', summary: `${target} at risk (${scope})`, description: 'd' }] : [],
  });

  it("a change of scope never changes a told incident's labels: no update, no resolve + fire, not a flap; its text says what is true now", () => {
    const { engine, batches } = setup('  for_polls: 1\n  flap_threshold: 3\n  flap_window: 1h\n');
    // its own problem first, then every validator looks down, back and forth: four flips, past the flap threshold of 3
    for (const [i, scope] of ['self', 'network', 'self', 'network', 'self'].entries()) engine.evaluate(atRisk('v1', scope), T0 + i * MIN);
    const own = () => batches.flatMap((b) => b.alerts).filter((a) => a.labels.target === 'v1');
    expect(own().map((a) => `${a.kind} ${a.labels.scope}`)).toEqual(['firing self']);
    expect(engine.list().find((a) => a.target === 'v1')).toMatchObject({ state: 'firing', labels: { scope: 'self' }, annotations: { summary: 'v1 at risk (self)' } });
    engine.evaluate(atRisk('v1', 'network'), T0 + 5 * MIN);
    expect(engine.list().find((a) => a.target === 'v1')).toMatchObject({ labels: { scope: 'self' }, annotations: { summary: 'v1 at risk (network)' } });
    // a real resolve and a later real incident on the same validator are told
    engine.evaluate(atRisk('v1', undefined), T0 + 10 * MIN);
    engine.evaluate(atRisk('v1', 'self'), T0 + 11 * MIN);
    expect(own().slice(1).map((a) => `${a.kind} ${a.labels.scope}`)).toEqual(['resolved self', 'firing self']);
  });

  /**
   * Validators on mainnet (and `rpc`, a node without a validator poll) sharing one state_dir: an
   * engine for each set of them, every one telling the same batches.
   */
  function validatorFleet(resolvePolls = 1) {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-alerts-'));
    const batches: NotificationBatch[] = [];
    const configOf = (names: string[]) => {
      const nodes = names.map((name) => `  - {name: ${name}, url: "http://127.0.0.1:1"${name === 'rpc' ? ', validator: false' : ', validator: {interval: 2s}'}}`).join('\n');
      return parseConfig(`state_dir: ${dir}\nnodes:\n${nodes}\nalerts:\n  for_polls: 1\n  resolve_polls: ${resolvePolls}\n`, join(dir, 'c.yaml'), {});
    };
    const engineOf = (names: string[]) => new AlertEngine(configOf(names), { log: createLogger({ level: 'silent', format: 'json' }), sink: sinkInto(batches) });
    return { engineOf, configOf, batches };
  }

  /** The scoped rules besides the reward's (the fleet's view of each, its period, its budget) find nothing on these validators. */
  const othersFindNothing = (engine: AlertEngine, validators: string[], at: number) => {
    for (const v of validators) engine.evaluate({ target: v, covers: ['AvalancheValidatorEndingSoon', 'AvalancheValidatorDowntimeBudgetLow', 'AvalancheValidatorUnreachableByPeers'], unknown: [], conditions: [] }, at);
  };

  it('a network-wide dip is one notice naming the validators it touches; their own network-wide copies wait, an own problem told before stays as told', () => {
    const { engineOf, batches } = validatorFleet();
    const engine = engineOf(['v1', 'v2', 'v3', 'rpc']);
    const told = () => batches.flatMap((b) => b.alerts.map((a) => `${a.kind} ${a.labels.alertname} ${a.labels.target}${a.labels.scope ? ` ${a.labels.scope}` : ''}`));
    // v1's own problem, paged; the other scoped rules find nothing
    othersFindNothing(engine, ['v1', 'v2', 'v3'], T0);
    for (const v of ['v1', 'v2', 'v3']) engine.evaluate(atRisk(v, v === 'v1' ? 'self' : undefined), T0);
    expect(told()).toEqual(['firing AvalancheValidatorRewardAtRisk v1 self']);
    // the network dips: each validator's verdict says so, one after the other
    engine.evaluate(atRisk('v2', 'network'), T0 + 1000);
    expect(told()).toHaveLength(1); // the network's alert waits for every validator's verdict, to name them all
    engine.evaluate(atRisk('v3', 'network'), T0 + 1500);
    engine.evaluate(atRisk('v1', 'network'), T0 + 1800);
    expect(told().slice(1)).toEqual(['firing AvalancheNetworkDegraded mainnet network network']);
    const notice = batches.at(-1)!.alerts[0]!;
    expect(notice.labels).toMatchObject({ network: 'mainnet', scope: 'network', severity: 'warning' });
    expect(notice.annotations.summary).toBe('mainnet: every validator looks down from the fleet: 3 of your 3 validators affected (v1, v2 and v3)');
    expect(engine.list().filter((a) => a.alertname === 'AvalancheValidatorRewardAtRisk').map((a) => `${a.target} ${a.labels.scope} ${a.inhibitedBy ?? '-'}`)).toEqual(['v1 self -', 'v2 network AvalancheNetworkDegraded', 'v3 network AvalancheNetworkDegraded']);
    // more polls in the dip: nothing more is told
    for (const v of ['v1', 'v2', 'v3']) engine.evaluate(atRisk(v, 'network'), T0 + 3000);
    expect(told()).toHaveLength(2);
    // the dip ends: v2 and v3 clear, the network's alert ends with the last of them; v1 (its own problem) goes on
    engine.evaluate(atRisk('v2', undefined), T0 + 5000);
    engine.evaluate(atRisk('v1', 'self'), T0 + 5100);
    engine.evaluate(atRisk('v3', undefined), T0 + 5200);
    expect(told().slice(2)).toEqual(['resolved AvalancheNetworkDegraded mainnet network network']);
    engine.evaluate(atRisk('v1', undefined), T0 + 7000);
    expect(told().slice(3)).toEqual(['resolved AvalancheValidatorRewardAtRisk v1 self']);
  });

  it("the network's alert ends with the last validator it touches, once that validator's own incident has waited resolve_polls: a dip's flickering end is one incident", () => {
    const { engineOf, batches } = validatorFleet(2);
    const engine = engineOf(['v1', 'v2']);
    const told = () => batches.flatMap((b) => b.alerts.map((a) => `${a.kind} ${a.labels.alertname} ${a.labels.target}`));
    othersFindNothing(engine, ['v1', 'v2'], T0);
    let at = T0;
    const poll = (v: string, scope: string | undefined) => engine.evaluate(atRisk(v, scope), (at += 1000));
    for (const v of ['v1', 'v2']) poll(v, 'network');
    expect(told()).toEqual(['firing AvalancheNetworkDegraded mainnet network']);
    // the dip ends with a flicker: each validator clears once, dips again, then clears for good
    for (const [v, scope] of [['v1', undefined], ['v2', undefined], ['v1', 'network'], ['v2', 'network'], ['v1', undefined], ['v1', undefined], ['v2', undefined]] as const) poll(v, scope);
    expect(told()).toHaveLength(1); // v2's own incident still counts its good polls
    expect(engine.list().find((a) => a.alertname === 'AvalancheNetworkDegraded')?.annotations.summary).toMatch(/1 of your 2 validators affected \(v2\)/);
    poll('v2', undefined);
    expect(told().slice(1)).toEqual(['resolved AvalancheNetworkDegraded mainnet network']);
    expect(engine.list()).toEqual([]);
  });

  it("a validator that leaves the config leaves the network's alert at once: it names who is left, and ends with the last of them", () => {
    const { engineOf, configOf, batches } = validatorFleet();
    const engine = engineOf(['v1', 'v2', 'v3', 'rpc']);
    const told = () => batches.flatMap((b) => b.alerts.filter((a) => a.labels.alertname === 'AvalancheNetworkDegraded').map((a) => a.kind));
    const summary = () => engine.list().find((a) => a.alertname === 'AvalancheNetworkDegraded')?.annotations.summary;
    let config = configOf(['v1', 'v2', 'v3', 'rpc']);
    const reload = (names: string[], at: number) => {
      const next = configOf(names);
      engine.reconfigure(diffConfigs(config, next), at);
      config = next;
    };
    othersFindNothing(engine, ['v1', 'v2', 'v3'], T0);
    for (const v of ['v1', 'v2', 'v3']) engine.evaluate(atRisk(v, 'network'), T0 + 1000);
    expect(told()).toEqual(['firing']);
    reload(['v1', 'v2', 'rpc'], T0 + 2000);
    expect(summary()).toMatch(/2 of your 2 validators affected \(v1 and v2\)$/);
    reload(['v1', 'rpc'], T0 + 3000);
    reload(['rpc'], T0 + 4000);
    // no verdict of the network comes any more: the last one leaving ends it
    expect(told()).toEqual(['firing', 'resolved']);
    expect(engine.list()).toEqual([]);
  });

  it("after a start, a restored network alert stays while a validator of its network is watched here, and ends with the last of them", () => {
    const { engineOf, batches } = validatorFleet();
    const engine = engineOf(['v1', 'v2', 'rpc']);
    othersFindNothing(engine, ['v1', 'v2'], T0);
    for (const v of ['v1', 'v2']) engine.evaluate(atRisk(v, 'network'), T0 + 1000);
    void engine.flush();
    const told = () => batches.flatMap((b) => b.alerts.map((a) => `${a.kind} ${a.labels.alertname} ${a.labels.target}: ${a.annotations.description}`));
    expect(told().map((t) => t.split(':')[0])).toEqual(['firing AvalancheNetworkDegraded mainnet network']);

    const same = engineOf(['v1', 'v2', 'rpc']);
    same.settleRestored(new Set(['v1', 'v2', 'rpc']), () => true, true, T0 + MIN);
    expect(told()).toHaveLength(1);
    expect(same.list().map((a) => `${a.alertname} ${a.phase}`)).toContain('AvalancheNetworkDegraded firing');

    const noValidators = engineOf(['rpc']);
    noValidators.settleRestored(new Set(['rpc']), () => true, true, T0 + MIN);
    expect(told().slice(1)).toEqual([expect.stringMatching(/^resolved AvalancheNetworkDegraded mainnet network: .* Resolved by avahealth: no validator of this network is watched here any more\.$/)]);
    expect(noValidators.list().filter((a) => a.alertname === 'AvalancheNetworkDegraded')).toEqual([]);
  });

  it('alerts whose identity is only check/component/chain keep the fingerprints earlier versions persisted', () => {
    const { engine, node } = setup('  for_polls: 1\n');
    nodeUpdated(engine, node, nodeState('v1', failing({ network: 0 })), T0);
    const check = engine.list().find((a) => a.alertname === 'AvalancheCheckFailing')!;
    expect(check.key).toBe('AvalancheCheckFailing|v1|network||');
    expect(check.fingerprint).toBe(createHash('sha256').update('AvalancheCheckFailing|v1|network||').digest('hex').slice(0, 16));
  });
});

/** A root cause and its symptom on one validator, each from its own poll (the two describes below). */
const network: Evaluation['conditions'][number] = { alertname: 'AvalancheCheckFailing', target: 'v1', identity: { check: 'network' }, severity: 'warning', summary: 'v1: check network failing', description: 'd' };
const risk: Evaluation['conditions'][number] = { alertname: 'AvalancheValidatorRewardAtRisk', target: 'v1', identity: { scope: 'self' }, severity: 'warning', summary: 'v1: 60 % of stake sees it', description: 'd' };
const nodePoll = (cut: boolean): Evaluation => ({ target: 'v1', covers: ['AvalancheCheckFailing'], unknown: [], conditions: cut ? [network] : [] });
const validatorPoll = (atRisk: boolean): Evaluation => ({ target: 'v1', covers: ['AvalancheValidatorRewardAtRisk'], unknown: [], conditions: atRisk ? [risk] : [] });

/**
 * A symptom held back by its root cause (AvalancheCheckFailing{check="network"} holds a validator's
 * AvalancheValidatorRewardAtRisk: a node cut off loses its peers' uptime measure) keeps the verdict
 * of its own rule's last poll. When the cause ends on the node's poll, that verdict may be from
 * before (the validator poll read the figures while the node was cut off): telling it then paged a
 * reward at risk and resolved it a moment later, on the validator poll that followed (seeded trust
 * week 7). What it held back waits for its own rule's next verdict.
 */
describe('a symptom whose root cause just ended', () => {

  it('waits for its own rule to speak again: recovered by then, nothing is told of it', () => {
    const { engine, notices } = setup('  for_polls: 1\n');
    engine.evaluate(nodePoll(true), T0);
    engine.evaluate(validatorPoll(true), T0 + 1000);
    expect(notices()).toEqual(['firing AvalancheCheckFailing/network warning']);
    engine.evaluate(nodePoll(false), T0 + 2000);
    expect(notices().slice(1)).toEqual(['resolved AvalancheCheckFailing/network warning']);
    engine.evaluate(validatorPoll(false), T0 + 3000);
    expect(notices().slice(2)).toEqual([]);
  });

  it('still true at its own next verdict: told then', () => {
    const { engine, notices } = setup('  for_polls: 1\n');
    engine.evaluate(nodePoll(true), T0);
    engine.evaluate(validatorPoll(true), T0 + 1000);
    engine.evaluate(nodePoll(false), T0 + 2000);
    engine.evaluate(validatorPoll(true), T0 + 3000);
    expect(notices().slice(2)).toEqual(['firing AvalancheValidatorRewardAtRisk warning']);
  });
});

/**
 * Seeded trust week 8 (issue 43): a node that missed an upgrade was restarted on the build that
 * knows it; AvalancheNodeUpgradeRequired resolved and released AvalancheNodeUpgradeUnknown, which it
 * had held back and whose own verdict no longer found it (counting down resolve_polls). A kill, a
 * start, and the daemon paged it on its first verdict, to resolve it two seconds later. What
 * receivers never heard of is not news once its own rule no longer finds it, and a restart (what
 * held it back is not kept) waits for its rule to speak.
 */
describe('a held symptom that cleared before it was told', () => {

  it('is not told when its cause ends while its own verdicts count down resolve_polls', () => {
    const { engine, notices } = setup('  for_polls: 1\n  resolve_polls: 3\n');
    engine.evaluate(nodePoll(true), T0);
    engine.evaluate(validatorPoll(true), T0 + 1000);
    engine.evaluate(validatorPoll(false), T0 + 2000);
    for (let i = 0; i < 3; i++) engine.evaluate(nodePoll(false), T0 + 3000 + i * 1000);
    expect(notices()).toEqual(['firing AvalancheCheckFailing/network warning', 'resolved AvalancheCheckFailing/network warning']);
    engine.evaluate(validatorPoll(false), T0 + 7000);
    engine.evaluate(validatorPoll(false), T0 + 8000);
    expect(notices().slice(2)).toEqual([]);
    expect(engine.list().map((a) => a.alertname)).toEqual([]);
    // found again, it is news
    engine.evaluate(validatorPoll(true), T0 + 9000);
    expect(notices().slice(2)).toEqual(['firing AvalancheValidatorRewardAtRisk warning']);
  });

  it('after a restart, one receivers never heard of waits for its own rule', () => {
    const { engine, notices, make } = setup('  for_polls: 1\n');
    engine.evaluate(nodePoll(true), T0);
    engine.evaluate(validatorPoll(true), T0 + 1000);
    engine.evaluate(nodePoll(false), T0 + 2000);
    engine.flush();
    const restarted = make();
    restarted.evaluate(nodePoll(false), T0 + 5000);
    restarted.evaluate(validatorPoll(false), T0 + 6000);
    expect(notices()).toEqual(['firing AvalancheCheckFailing/network warning', 'resolved AvalancheCheckFailing/network warning']);
    expect(restarted.list().map((a) => a.alertname)).toEqual([]);
  });
});

/**
 * A period's end is told when the first poll after `endTime` sees it, and AvalancheGo decides the
 * reward a block or two later (vms/platformvm/txs/executor/proposal_tx_executor.go): the resolve may
 * say "outcome not known yet" (issue 44). The outcome then follows on the same incident, once, as a
 * second resolve with the same fingerprint and startsAt, across a restart too.
 */
describe('the outcome after "outcome not known yet"', () => {
  const ending: Evaluation['conditions'][number] = { alertname: 'AvalancheValidatorEndingSoon', target: 'v1', identity: { scope: 'self' }, severity: 'critical', summary: 'v1: validation ends in 2m', description: 'd' };
  const poll = (words?: string, firing = false): Evaluation => ({
    target: 'v1',
    covers: ['AvalancheValidatorEndingSoon'],
    unknown: [],
    conditions: firing ? [ending] : [],
    ...(firing ? {} : { over: ['AvalancheValidatorEndingSoon' as const] }),
    recovered: () => words,
  });
  const resolves = (batches: NotificationBatch[]) => batches.flatMap((b) => b.alerts).filter((a) => a.status === 'resolved');

  it('is told once the words tell it, on the same incident, after a restart too', () => {
    const { engine, batches, make } = setup('  for_polls: 1\n');
    engine.evaluate(poll(undefined, true), T0);
    engine.evaluate(poll('validation period ended; outcome not known yet'), T0 + 1000);
    engine.evaluate(poll('validation period ended; outcome not known yet'), T0 + 2000);
    expect(resolves(batches).map((a) => a.annotations.summary)).toEqual(['v1: validation period ended; outcome not known yet']);
    // not an alert any more: the views leave it out (src/app/view.ts)
    expect(engine.list().map((a) => [a.phase, a.notified?.phase])).toEqual([['resolved', 'resolved']]);
    engine.flush();
    const restarted = make();
    restarted.evaluate(poll('validation period ended, paid 117.4 AVAX'), T0 + 5000);
    restarted.evaluate(poll('validation period ended, paid 117.4 AVAX'), T0 + 6000);
    const [first, outcome, ...more] = resolves(batches);
    expect(more).toEqual([]);
    expect(outcome!.annotations.summary).toBe('v1: validation period ended, paid 117.4 AVAX');
    expect([outcome!.fingerprint, outcome!.startsAt, outcome!.endsAt]).toEqual([first!.fingerprint, first!.startsAt, first!.endsAt]);
    expect(restarted.list()).toEqual([]);
  });

  it('unpaid is told the same way; words that are no outcome end the wait silently', () => {
    const unpaid = setup('  for_polls: 1\n');
    unpaid.engine.evaluate(poll(undefined, true), T0);
    unpaid.engine.evaluate(poll('validation period ended; outcome not known yet'), T0 + 1000);
    unpaid.engine.evaluate(poll('validation period ended unpaid: 117.4 AVAX forfeited'), T0 + 2000);
    expect(resolves(unpaid.batches).map((a) => a.annotations.summary)).toEqual(['v1: validation period ended; outcome not known yet', 'v1: validation period ended unpaid: 117.4 AVAX forfeited']);

    const silent = setup('  for_polls: 1\n');
    silent.engine.evaluate(poll(undefined, true), T0);
    silent.engine.evaluate(poll('validation period ended; outcome not known yet'), T0 + 1000);
    silent.engine.evaluate(poll('validating until 2027-01-01 00:00 UTC'), T0 + 2000);
    silent.engine.evaluate(poll('validation period ended, paid 117.4 AVAX'), T0 + 3000);
    expect(resolves(silent.batches)).toHaveLength(1);
    expect(silent.engine.list()).toEqual([]);

    // nor does it wait for good: OUTCOME_WAIT_MS after the end, the target's page says what there is
    const late = setup('  for_polls: 1\n');
    late.engine.evaluate(poll(undefined, true), T0);
    late.engine.evaluate(poll('validation period ended; outcome not known yet'), T0 + 1000);
    late.engine.evaluate(poll('validation period ended; outcome not known yet'), T0 + 1000 + OUTCOME_WAIT_MS);
    expect(late.engine.list()).toEqual([]);
    late.engine.evaluate(poll('validation period ended, paid 117.4 AVAX'), T0 + 2000 + OUTCOME_WAIT_MS);
    expect(resolves(late.batches)).toHaveLength(1);
  });

  it('ends with its target: nothing is kept for a target that left', () => {
    const { engine, batches } = setup('  for_polls: 1\n');
    engine.evaluate(poll(undefined, true), T0);
    engine.evaluate(poll('validation period ended; outcome not known yet'), T0 + 1000);
    engine.removeTarget('v1', T0 + 2000);
    expect(engine.list()).toEqual([]);
    expect(resolves(batches)).toHaveLength(1);
  });
});

describe('what the engine hands the rest of the daemon', () => {
  const CHECK_ONLY = '  for_polls: 1\n  rules:\n    AvalancheCheckFailing: {critical_after: 10m}\n    AvalancheNodeUnhealthy: {disabled: true}\n';

  it("keeps a target's verdict changes for its page, newest first and at most 20, and forgets them with the target", () => {
    const { engine, node } = setup(CHECK_ONLY);
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0);
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0 + MIN); // still firing, still warning: no change
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0 + 11 * MIN);
    nodeUpdated(engine, node, nodeState('v1', HEALTHY()), T0 + 12 * MIN);
    const changes = () => engine.changesOf('v1').map((c) => `${(c.at - T0) / MIN}m ${c.kind} ${c.alertname}/${c.labels.check} ${c.severity}${c.from ? ` from ${c.from}` : ''}`);
    expect(changes()).toEqual(['12m resolved AvalancheCheckFailing/C critical', '11m severity_changed AvalancheCheckFailing/C critical from warning', '0m firing AvalancheCheckFailing/C warning']);
    expect(engine.changesOf('v1')[2]!.summary).toBe('v1: check C failing');
    for (let i = 0; i < 20; i++) nodeUpdated(engine, node, nodeState('v1', i % 2 === 0 ? failing({ X: 1 }) : HEALTHY()), T0 + (13 + i) * MIN);
    expect(changes()).toHaveLength(20);
    expect(changes()[0]).toBe('32m resolved AvalancheCheckFailing/X warning');
    expect(engine.changesOf('v2')).toEqual([]);
    engine.removeTarget('v1', T0 + HOUR);
    expect(engine.changesOf('v1')).toEqual([]);
  });

  it('says what a verdict could not know until a verdict of that rule knows it, and forgets it with the target', () => {
    const { engine } = setup();
    const why = { what: 'whether v1 is behind', because: 'the Data API is rate limited' };
    const verdict = (covers: Evaluation['covers'], unknown: Evaluation['unknown']): Evaluation => ({ target: 'v1', covers, unknown, unknownWhy: Object.fromEntries(unknown.map((name) => [name, why])), conditions: [] });
    engine.evaluate(verdict(['AvalancheNodeHeightLag'], ['AvalancheNodeHeightLag']), T0);
    expect(engine.unknownOf('v1')).toEqual([why]);
    engine.evaluate(verdict(['AvalancheCheckFailing'], []), T0 + MIN); // another rule's verdict says nothing of it
    expect(engine.unknownOf('v1')).toEqual([why]);
    engine.evaluate(verdict(['AvalancheNodeHeightLag'], []), T0 + 2 * MIN);
    expect(engine.unknownOf('v1')).toEqual([]);
    engine.evaluate(verdict(['AvalancheNodeHeightLag'], ['AvalancheNodeHeightLag']), T0 + 3 * MIN);
    engine.removeTarget('v1', T0 + 4 * MIN);
    expect(engine.unknownOf('v1')).toEqual([]);
  });

  it('re-sends what receivers were told at the interval the sink asks for, from start to stop, and follows a new sink', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const { engine, node, config } = setup(CHECK_ONLY);
      const first: NotificationBatch[] = [];
      const second: NotificationBatch[] = [];
      const every = (ms: number | undefined, into: NotificationBatch[]) => ({ ...sinkInto(into), resendIntervalMs: () => ms });
      engine.connect(every(MIN, first));
      nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), Date.now());
      vi.advanceTimersByTime(2 * MIN); // connected, not started: no timer yet
      expect(first.map((b) => b.resend)).toEqual([undefined]);
      nodeUpdated(engine, node, nodeState('v1', HEALTHY()), Date.now());
      first.length = 0;
      engine.start();
      vi.advanceTimersByTime(MIN); // nothing firing: nothing re-sent
      expect(first).toEqual([]);
      nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), Date.now());
      expect(first.map((b) => b.resend)).toEqual([undefined]);
      vi.advanceTimersByTime(2 * MIN);
      expect(first.slice(1).map((b) => `${b.target} ${b.resend} ${b.alerts.map((a) => a.labels.check).join()}`)).toEqual(['* true C', '* true C']);
      engine.connect(every(5 * MIN, second)); // a reload's new notifier: its interval, and nothing more to the old one
      vi.advanceTimersByTime(5 * MIN);
      expect(first).toHaveLength(3);
      expect(second.map((b) => b.resend)).toEqual([true]);
      engine.stop();
      vi.advanceTimersByTime(10 * MIN);
      expect(second).toHaveLength(1);
      engine.connect(every(MIN, second)); // stopped: connecting starts nothing
      vi.advanceTimersByTime(10 * MIN);
      expect(second).toHaveLength(1);
      const never = new AlertEngine(config, { log: createLogger({ level: 'silent', format: 'json' }), sink: every(undefined, first) });
      nodeUpdated(never, node, nodeState('v1', failing({ X: 1 })), Date.now());
      first.length = 3;
      never.start();
      vi.advanceTimersByTime(10 * MIN);
      expect(first).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('gives the firing incidents as receivers were told them, and the carried facts with firing notices only', () => {
    const carried: string[] = [];
    const { engine, node, config, batches } = setup(CHECK_ONLY);
    const withFacts = new AlertEngine(config, {
      log: createLogger({ level: 'silent', format: 'json' }),
      sink: sinkInto(batches),
      carried: (target) => (carried.push(target), target === 'v1' ? { upgrade: { deadline: '2026-12-01T00:00:00Z' } } : undefined),
    });
    nodeUpdated(withFacts, node, nodeState('v1', failing({ C: 1 })), T0);
    expect(batches[0]!.alerts[0]!.carried).toEqual({ upgrade: { deadline: '2026-12-01T00:00:00Z' } });
    nodeUpdated(withFacts, node, nodeState('v1', HEALTHY()), T0 + MIN);
    expect(batches[1]!.alerts[0]).toMatchObject({ status: 'resolved' });
    expect(batches[1]!.alerts[0]!.carried).toBeUndefined();
    expect(carried).toEqual(['v1']);

    // told warning, then critical under a silence: receivers still hold the warning
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0);
    engine.silences.add({ matchers: { target: 'v1' }, endsAt: T0 + HOUR }, T0 + MIN);
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1, X: 1 })), T0 + 11 * MIN); // X fires under the silence: never told
    expect(engine.list().map((s) => `${s.labels.check} ${s.severity}`)).toEqual(['C critical', 'X warning']);
    expect(engine.toldFiring(T0 + 12 * MIN).map((n) => `${n.status} ${n.labels.check} ${n.labels.severity} ${n.startsAt}`)).toEqual([`firing C warning ${new Date(T0).toISOString()}`]);
    expect(engine.firing(T0 + 12 * MIN)).toEqual([]); // the silence holds it back from a resend
    expect(engine.silenced(T0 + 12 * MIN).map((s) => `${s.notice.labels.check} ${s.until - T0}`)).toEqual([`C ${HOUR}`, `X ${HOUR}`]);
  });

  it('after a start, hands over the restored alerts of a target that moved to another shard, and resolves those of a target that left', () => {
    const restored = (watched: string[], ownedHere: boolean, resolveUnwatched: boolean) => {
      const { engine, node, make, batches } = setup(CHECK_ONLY);
      nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0);
      void engine.flush();
      const restarted = make();
      batches.length = 0;
      restarted.settleRestored(new Set(watched), () => ownedHere, resolveUnwatched, T0 + MIN);
      return { restarted, told: batches.map((b) => `${b.handover ? 'handover ' : ''}${b.alerts.map((a) => `${a.status} ${a.labels.check}: ${a.annotations.description}`).join()}`) };
    };
    expect(restored(['v1'], false, true).told).toEqual([]);
    const moved = restored([], false, true);
    expect(moved.told).toEqual(['handover resolved C: C is failing Resolved by avahealth: target moved to another shard.']);
    expect(moved.restarted.list()).toEqual([]);
    expect(restored([], true, true).told).toEqual(['resolved C: C is failing']);
    const kept = restored([], true, false); // discovery's answer may be incomplete: nothing resolves
    expect(kept.told).toEqual([]);
    expect(kept.restarted.list().map((s) => s.phase)).toEqual(['firing']);
  });

  it('after a start, follows what the outboxes say receivers were told: reopens what they hold, closes what they were told resolved', () => {
    const logs: string[] = [];
    const { engine, node, make, batches } = setup(CHECK_ONLY, '', logs);
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1, X: 1 })), T0);
    const [c, x] = batches[0]!.alerts;
    void engine.flush();
    const open = (...notices: Array<typeof c>) => new Map(notices.map((n) => [n!.fingerprint, { at: T0, alert: n! }]));

    const nothingMoved = make();
    nothingMoved.reconcile({ open: open(c, x), routed: () => true }, T0 + MIN);
    expect(nothingMoved.list().map((s) => `${s.labels.check} ${s.phase}`)).toEqual(['C firing', 'X firing']);
    expect(logs.filter((l) => l.includes('reconciled'))).toEqual([]);

    const xResolved = make();
    xResolved.reconcile({ open: open(c), routed: (n) => n.labels.check === 'X' }, T0 + MIN);
    expect(xResolved.list().map((s) => s.labels.check)).toEqual(['C']);
    expect(JSON.parse(logs.find((l) => l.includes('reconciled'))!)).toMatchObject({ reopened: 0, closed: 1 });

    // a receiver holds an incident the state file lost (a crash before it was written)
    const lost = setup(CHECK_ONLY);
    lost.engine.reconcile({ open: open(c), routed: () => true }, T0 + MIN);
    expect(lost.engine.list().map((s) => `${s.labels.check} ${s.phase} ${s.fingerprint === c!.fingerprint}`)).toEqual(['C firing true']);
    expect(lost.engine.toldFiring(T0 + MIN).map((n) => n.startsAt)).toEqual([c!.startsAt]);
  });

  it('a restored incident is re-sent to receivers that forget only once a verdict finds it again (state_dir is a cache)', () => {
    const { engine, node, make } = setup('  for_polls: 1\n  resolve_polls: 3\n  rules:\n    AvalancheNodeUnhealthy: {disabled: true}\n');
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0);
    void engine.flush();
    const restarted = make();
    const resent = () => restarted.firing(T0 + 5 * MIN).map((n) => n.labels.check);
    expect(restarted.list().map((s) => `${s.labels.check} ${s.phase}`)).toEqual(['C firing']);
    expect(resent()).toEqual([]);
    // its rule could not know: not found
    restarted.evaluate({ target: 'v1', covers: ['AvalancheCheckFailing'], unknown: ['AvalancheCheckFailing'], conditions: [] }, T0 + MIN);
    expect(resent()).toEqual([]);
    // another rule's verdict: not found either
    restarted.evaluate({ target: 'v1', covers: ['AvalancheNodeNotReady'], unknown: [], conditions: [] }, T0 + MIN);
    expect(resent()).toEqual([]);
    // passing once, still firing while resolve_polls counts down: not found
    nodeUpdated(restarted, node, nodeState('v1', HEALTHY()), T0 + 2 * MIN);
    expect(restarted.list().map((s) => `${s.labels.check} ${s.phase}`)).toEqual(['C firing']);
    expect(resent()).toEqual([]);
    nodeUpdated(restarted, node, nodeState('v1', failing({ C: 1 })), T0 + 3 * MIN);
    expect(resent()).toEqual(['C']);
  });

  it('says when a verdict changed an incident, and only then (the silence mirror sends at once)', () => {
    const { config, node } = setup('  for_polls: 2\n  rules:\n    AvalancheNodeUnhealthy: {disabled: true}\n');
    let changed = 0;
    const engine = new AlertEngine(config, { log: createLogger({ level: 'silent', format: 'json' }), sink: sinkInto([]), changed: () => changed++ });
    nodeUpdated(engine, node, nodeState('v1', HEALTHY()), T0);
    expect(changed).toBe(0);
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0 + MIN); // pending
    expect(changed).toBe(1);
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0 + 2 * MIN); // firing
    expect(changed).toBe(2);
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0 + 3 * MIN);
    expect(changed).toBe(2);
  });

  it("adopts a moved target's incidents as announced elsewhere, unless its own word is told and confirmed", () => {
    const logs: string[] = [];
    const { engine, node, make, batches } = setup('  for_polls: 1\n  rules:\n    AvalancheNodeUnhealthy: {disabled: true}\n', '', logs);
    const EARLIER = new Date(T0 - HOUR).toISOString();
    const announced = (check: string) => ({ labels: { alertname: 'AvalancheCheckFailing', target: 'v1', check, env: 'mainnet', severity: 'critical' }, startsAt: EARLIER });
    const fresh = make();
    const adopted = fresh.adopt([announced('C'), { labels: { alertname: 'AvalancheCheckFailing', check: 'X' }, startsAt: EARLIER }], T0);
    expect(adopted.map((i) => i.alert.labels.check)).toEqual(['C']);
    expect(fresh.list().map((s) => `${s.key} ${s.phase} ${new Date(s.firingSince!).toISOString()}`)).toEqual([`AvalancheCheckFailing|v1|C|| firing ${EARLIER}`]);
    expect(logs.some((l) => l.includes('adopted from Alertmanager'))).toBe(true);
    // the same incident as this daemon's own verdict makes (the target's labels are no identity), an
    // hour old and so critical (critical_after 30m): not announced again
    nodeUpdated(fresh, node, nodeState('v1', failing({ C: 1 })), T0 + MIN);
    expect(batches).toEqual([]);
    expect(fresh.firing(T0 + MIN).map((n) => n.startsAt)).toEqual([EARLIER]);

    // its own told word wins
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0);
    expect(engine.adopt([announced('C')], T0 + MIN)).toEqual([]);
    expect(engine.firing(T0 + MIN).map((n) => n.startsAt)).toEqual([new Date(T0).toISOString()]);
    // unless it is a restored one no verdict has confirmed: the record of the owner since then wins
    void engine.flush();
    const restarted = make();
    expect(restarted.adopt([announced('C')], T0 + 2 * MIN).map((i) => i.alert.labels.check)).toEqual(['C']);
    expect(restarted.firing(T0 + 2 * MIN).map((n) => n.startsAt)).toEqual([EARLIER]);
  });

  it('a flap hold outlives a restart: the held resolve waits for the window, then is told once; its log lines are not said twice', () => {
    const logs: string[] = [];
    const { engine, node, make, notices } = setup('  for_polls: 1\n  flap_threshold: 2\n  flap_window: 10m\n  rules:\n    AvalancheNodeUnhealthy: {disabled: true}\n', '', logs);
    const said = () => logs.map((l) => (JSON.parse(l) as { msg: string }).msg).filter((m) => m.includes('flapping'));
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0);
    for (const [i, report] of [HEALTHY(), failing({ C: 1 }), HEALTHY()].entries()) nodeUpdated(engine, node, nodeState('v1', report), T0 + 11 * MIN + i * 30_000);
    expect(engine.list().map((a) => `${a.phase} ${a.state}`)).toEqual(['resolved flapping']);
    expect(notices()).toHaveLength(3);
    void engine.flush();
    const restarted = make();
    expect(restarted.list().map((a) => `${a.phase} ${a.state}`)).toEqual(['resolved flapping']);
    nodeUpdated(restarted, node, nodeState('v1', HEALTHY()), T0 + 13 * MIN);
    expect(notices()).toHaveLength(3);
    nodeUpdated(restarted, node, nodeState('v1', HEALTHY()), T0 + 22 * MIN);
    expect(notices().slice(3)).toEqual(['resolved AvalancheCheckFailing/C warning']);
    expect(restarted.list()).toEqual([]);
    expect(said()).toEqual(['alert is flapping: its notifications are held until it is stable for the flap window', 'alert stopped flapping: its current state is told once']);
  });

  it('a reload drops the targets that left the config, resolving their alerts', () => {
    const { engine, node, config, notices } = setup(CHECK_ONLY);
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0);
    engine.reconfigure(diffConfigs(config, { ...config, nodes: [] }));
    expect(notices()).toEqual(['firing AvalancheCheckFailing/C warning', 'resolved AvalancheCheckFailing/C warning']);
    expect(engine.list()).toEqual([]);
  });

  it('after a restart, an incident receivers were told is reminded of at repeat_interval whichever verdict of its target comes first', () => {
    const { engine, node, make, notices } = setup('  for_polls: 1\n  repeat_interval: 1h\n  rules:\n    AvalancheNodeUnhealthy: {disabled: true}\n');
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0);
    void engine.flush();
    const restarted = make();
    restarted.evaluate({ target: 'v1', covers: ['AvalancheNodeNotReady'], unknown: [], conditions: [] }, T0 + 61 * MIN);
    expect(notices()).toEqual(['firing AvalancheCheckFailing/C warning', 'reminder AvalancheCheckFailing/C warning']);
  });

  it('batches are dropped until a sink is connected; a reload applies the new settings', () => {
    const { config, node } = setup(CHECK_ONLY);
    const engine = new AlertEngine(config, { log: createLogger({ level: 'silent', format: 'json' }) });
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0);
    engine.resendNow();
    expect(engine.list().map((s) => `${s.labels.check} ${s.phase}`)).toEqual(['C firing']);
    const batches: NotificationBatch[] = [];
    engine.connect(sinkInto(batches));
    engine.setConfig(parseConfig(`state_dir: ${config.stateDir}\nnodes:\n  - {name: v1, url: "http://127.0.0.1:1"}\nalerts:\n  for_polls: 1\n  resolve_polls: 1\n  rules:\n    AvalancheCheckFailing: {disabled: true}\n    AvalancheNodeUnhealthy: {disabled: true}\n`, join(config.stateDir, 'config.yaml'), {}));
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1, X: 1 })), T0 + MIN);
    // its rule is off now: the open incident ends, nothing new fires
    expect(batches.flatMap((b) => b.alerts.map((a) => `${a.kind} ${a.labels.check}`))).toEqual(['resolved C']);
  });

  it("a verdict handed in with resolveAtOnce ends what it no longer finds now; one of a handover says so on its batch", () => {
    const { engine, node, batches } = setup('  for_polls: 1\n  resolve_polls: 3\n  rules:\n    AvalancheNodeUnhealthy: {disabled: true}\n');
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 1, X: 1 })), T0);
    engine.evaluate({ target: 'v1', covers: ['AvalancheCheckFailing'], unknown: [], conditions: [{ alertname: 'AvalancheCheckFailing', target: 'v1', identity: { check: 'X' }, severity: 'warning', summary: 'v1: check X failing', description: 'd' }] }, T0 + MIN, { resolveAtOnce: true });
    expect(batches.slice(1).map((b) => `${b.handover ?? false} ${b.alerts.map((a) => `${a.kind} ${a.labels.check}`)}`)).toEqual(['false resolved C']);
    engine.evaluate({ target: 'v1', covers: ['AvalancheCheckFailing'], unknown: [], conditions: [] }, T0 + 2 * MIN, { resolveAtOnce: true, handover: true });
    expect(batches.slice(2).map((b) => `${b.handover ?? false} ${b.alerts.map((a) => `${a.kind} ${a.labels.check}`)}`)).toEqual(['true resolved X']);
  });

  it('saves what changed within a second, without a flush, and only once the outboxes have written what they were handed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let written: () => void = () => {};
      let onDisk: Promise<void> | undefined = new Promise<void>((resolve) => (written = resolve));
      const { config, node, make } = setup(CHECK_ONLY);
      const sink = { ...sinkInto([]), pendingWrites: () => onDisk };
      const engine = new AlertEngine(config, { log: createLogger({ level: 'silent', format: 'json' }), sink });
      const saved = () => make().list().map((s) => `${s.labels.check} ${s.phase}${s.acknowledged ? ` acked by ${s.acknowledged.by}` : ''}`);
      nodeUpdated(engine, node, nodeState('v1', failing({ C: 1 })), T0);
      vi.advanceTimersByTime(1000);
      expect(saved()).toEqual([]); // the outbox has not written the firing yet: neither is the state
      written();
      await onDisk;
      await Promise.resolve();
      expect(saved()).toEqual(['C firing']);
      onDisk = undefined;
      engine.acknowledge([engine.list()[0]!.fingerprint], 'alice', T0 + MIN);
      vi.advanceTimersByTime(1000);
      expect(saved()).toEqual(['C firing acked by alice']);
      engine.adopt([{ labels: { alertname: 'AvalancheCheckFailing', target: 'v1', check: 'X', severity: 'warning' }, startsAt: new Date(T0).toISOString() }], T0 + 2 * MIN);
      vi.advanceTimersByTime(1000);
      expect(saved()).toEqual(['C firing acked by alice', 'X firing']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('acknowledges a firing incident by a prefix of its fingerprint; one naming none or several is said so', () => {
    const { engine, node } = setup('  rules:\n    AvalancheNodeUnhealthy: {disabled: true}\n');
    nodeUpdated(engine, node, nodeState('v1', failing({ C: 2, X: 2, P: 1 })), T0); // P pending (for_polls 2)
    const [c, x, p] = ['C', 'X', 'P'].map((check) => engine.list().find((s) => s.labels.check === check));
    expect(p!.phase).toBe('pending');
    expect(engine.acknowledge([p!.fingerprint], 'alice', T0).unknown).toEqual([p!.fingerprint]);
    let shared = 0;
    while (c!.fingerprint[shared] === x!.fingerprint[shared]) shared++;
    const result = engine.acknowledge([c!.fingerprint.slice(0, 6), 'ffffffffffffffffff', c!.fingerprint.slice(0, shared)], 'alice', T0 + MIN);
    expect(result.acknowledged.map((s) => s.labels.check)).toEqual(['C']);
    expect(result.unknown).toEqual(['ffffffffffffffffff']);
    expect(result.ambiguous).toEqual([c!.fingerprint.slice(0, shared)]);
    expect([c, x, p].map((s) => s!.acknowledged)).toEqual([{ by: 'alice', at: T0 + MIN, severity: 'warning' }, undefined, undefined]);
  });
});
