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
