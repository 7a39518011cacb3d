import { describe, expect, it } from 'vitest';
import { Flaps } from '../../src/alerts/flaps.js';

describe('Flaps keeps only the changes within the flap window', () => {
  it('a large threshold does not keep every change ever seen: older than the window are let go when a change is recorded', () => {
    const flaps = new Flaps(100_000, 60_000);
    for (let i = 0; i < 600; i++) flaps.record('AvalancheNodeDown|n1|', i * 1000);
    expect(flaps.toJSON(599_000)['AvalancheNodeDown|n1|']).toHaveLength(60);
    expect(flaps.isFlapping('AvalancheNodeDown|n1|', 599_000)).toBe(false);
  });

  it('what is persisted holds no change older than the window, and no key left without one', () => {
    const flaps = new Flaps(4, 60_000);
    flaps.record('A|gone|', 0);
    flaps.record('A|n1|', 0);
    flaps.record('A|n1|', 50_000);
    expect(flaps.toJSON(90_000)).toEqual({ 'A|n1|': [50_000] });
  });

  it('the threshold still bounds the changes kept, and more than it within the window is flapping', () => {
    const flaps = new Flaps(4, 60_000);
    for (let i = 0; i < 10; i++) flaps.record('A|n1|', i * 1000);
    expect(flaps.toJSON(9000)['A|n1|']).toEqual([5000, 6000, 7000, 8000, 9000]);
    expect(flaps.isFlapping('A|n1|', 9000)).toBe(true);
  });
});

describe('Flaps: the window and a target that leaves (docs/alerting.md, Noise control)', () => {
  it('a change exactly flap_window old is out of it: stable for the window, no longer flapping, nor persisted', () => {
    const flaps = new Flaps(2, 60_000);
    for (const at of [0, 0, 0]) flaps.record('A|n1|', at);
    expect(flaps.isFlapping('A|n1|', 59_999)).toBe(true);
    expect(flaps.toJSON(59_999)).toEqual({ 'A|n1|': [0, 0, 0] });
    expect(flaps.isFlapping('A|n1|', 60_000)).toBe(false);
    expect(flaps.toJSON(60_000)).toEqual({});
  });

  it('what is saved is cut to the window before the latest change recorded (the engine clock, not the wall)', () => {
    const flaps = new Flaps(4, 60_000);
    flaps.record('A|gone|', 0);
    flaps.record('A|n1|', 30_000);
    flaps.record('A|n1|', 100_000);
    expect(flaps.toJSON()).toEqual({ 'A|n1|': [100_000] });
  });

  it('a target that leaves takes its change times and its flap holds with it; every other target keeps its own', () => {
    const flaps = new Flaps(1, 60_000);
    for (const key of ['A|n1|', 'B|n1|C', 'A|n10|', 'A|x|n1']) for (const at of [0, 1000]) flaps.record(key, at);
    const held = new Set(['A|n1|', 'C|n1|P', 'A|n10|']);
    flaps.forgetTarget('n1', held);
    expect(flaps.toJSON(1000)).toEqual({ 'A|n10|': [0, 1000], 'A|x|n1': [0, 1000] });
    expect([...held]).toEqual(['A|n10|']);
    expect(flaps.isFlapping('A|n1|', 1000)).toBe(false);
    expect(flaps.isFlapping('A|n10|', 1000)).toBe(true);
  });

  it('what is persisted at exactly flap_window after a change leaves it out, with no check in between', () => {
    const flaps = new Flaps(2, 60_000);
    flaps.record('A|n1|', 0);
    flaps.record('A|n1|', 30_000);
    expect(flaps.toJSON(60_000)).toEqual({ 'A|n1|': [30_000] });
    expect(flaps.toJSON(90_000)).toEqual({});
  });

  it("a reload's threshold and window apply to the changes already recorded (setLimits)", () => {
    const flaps = new Flaps(4, 30 * 60_000);
    for (const at of [0, 1000, 2000]) flaps.record('A|n1|', at);
    expect(flaps.isFlapping('A|n1|', 2000)).toBe(false);
    flaps.setLimits(2, 30 * 60_000);
    expect(flaps.isFlapping('A|n1|', 2000)).toBe(true);
    flaps.setLimits(2, 1500);
    expect(flaps.isFlapping('A|n1|', 2000)).toBe(false);
  });
});
