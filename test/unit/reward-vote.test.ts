import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REWARD_LIKELY_STAKE_RATIO, REWARD_LOST_STAKE_RATIO, rewardOutlook, SNOWMAN_ALPHA, SNOWMAN_K } from '../../src/model/reward-vote.js';

/** P(at least `alpha` of `k` sampled votes go to a side holding `share` of the stake). */
function pollSucceeds(share: number, k = SNOWMAN_K, alpha = SNOWMAN_ALPHA): number {
  let p = 0;
  let choose = 1;
  for (let i = 0; i <= k; i++) {
    if (i >= alpha) p += choose * share ** i * (1 - share) ** (k - i);
    choose = (choose * (k - i)) / (i + 1);
  }
  return p;
}

/** Deterministic pseudo-random numbers (mulberry32), so the runs below are the same every time. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The reward vote among `nodes` validators of equal stake, a share `rewarding` of which prefers
 * the reward at first: binary Snowball as AvalancheGo runs it (snow/consensus/snowball/
 * binary_snowball.go, binary_snowflake.go; mainnet k = 20, alphaPreference = alphaConfidence = 15,
 * beta = 20 from parameters.go). Each round every undecided node polls k validators sampled by
 * stake; a poll with alpha votes for a side adds to that side's strength (the preference is the
 * stronger side) and to the confidence, which finalizes after beta such polls in a row.
 * Returns whether the reward (commit) won.
 */
function vote(rewarding: number, nodes: number, next: () => number): boolean {
  const preference = Array.from({ length: nodes }, (_, i): number => (i < Math.round(rewarding * nodes) ? 1 : 0));
  const strength = [new Array<number>(nodes).fill(0), new Array<number>(nodes).fill(0)];
  const flake = new Array<number>(nodes).fill(-1);
  const confidence = new Array<number>(nodes).fill(0);
  const final = new Array<boolean>(nodes).fill(false);
  for (let round = 0; round < 2000 && final.includes(false); round++) {
    const votes = [...preference];
    for (let i = 0; i < nodes; i++) {
      if (final[i]) continue;
      let reward = 0;
      for (let j = 0; j < SNOWMAN_K; j++) reward += votes[Math.floor(next() * nodes)]!;
      const side = reward >= SNOWMAN_ALPHA ? 1 : SNOWMAN_K - reward >= SNOWMAN_ALPHA ? 0 : -1;
      if (side < 0) {
        confidence[i] = 0;
        continue;
      }
      strength[side]![i]!++;
      if (strength[side]![i]! > strength[1 - side]![i]!) preference[i] = side;
      confidence[i] = flake[i] === side ? confidence[i]! + 1 : 1;
      flake[i] = side;
      if (confidence[i]! >= 20) final[i] = true;
    }
  }
  return preference.reduce((a, b) => a + b, 0) > nodes / 2;
}

describe('what rewarding stake means for the reward (docs/validators.md, "The reward vote")', () => {
  it('one poll: the side holding the stake majority gets alpha of k votes far more often than the other', () => {
    // the figures docs/validators.md quotes
    expect(pollSucceeds(0.8)).toBeCloseTo(0.804, 3);
    expect(pollSucceeds(0.75)).toBeCloseTo(0.617, 3);
    expect(pollSucceeds(0.6)).toBeCloseTo(0.126, 3);
    expect(pollSucceeds(0.4)).toBeCloseTo(0.0016, 4);
    expect(pollSucceeds(0.55)).toBeCloseTo(0.0553, 4);
    expect(pollSucceeds(0.45)).toBeCloseTo(0.0064, 4);
    expect(pollSucceeds(0.5)).toBeCloseTo(0.0207, 4);
  });

  it('Snowball carries the stake majority: rewarded at 60 %, lost at 40 %, either way only close to 50 %', () => {
    const next = random(24);
    const wins = (rewarding: number, runs: number) => Array.from({ length: runs }, () => vote(rewarding, 100, next)).filter(Boolean).length;
    expect(wins(REWARD_LIKELY_STAKE_RATIO, 10)).toBe(10);
    expect(wins(0.75, 5)).toBe(5); // not a coin flip at alpha/k
    expect(wins(REWARD_LOST_STAKE_RATIO, 10)).toBe(0);
    const half = wins(0.5, 20);
    expect(half).toBeGreaterThan(2);
    expect(half).toBeLessThan(18);
  });

  it('the outlook the alerts, the status page and the dashboard use', () => {
    expect([1, 0.8, 0.725, 0.6].map(rewardOutlook)).toEqual(['likely', 'likely', 'likely', 'likely']);
    expect([0.599, 0.5, 0.4].map(rewardOutlook)).toEqual(['uncertain', 'uncertain', 'uncertain']);
    expect([0.399, 0.1, 0].map(rewardOutlook)).toEqual(['lost', 'lost', 'lost']);
  });
});

describe('docs/validators.md says what the code and AvalancheGo do', () => {
  const doc = readFileSync(new URL('../../docs/validators.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');

  it('its per-poll table is the binomial the derivation rests on', () => {
    for (const [share, commit] of [[0.8, '0.804'], [0.75, '0.617'], [0.6, '0.126'], [0.55, '0.055'], [0.5, '0.021']] as const) {
      expect(doc).toContain(`| ${share.toFixed(2)} | ${commit} |`);
      expect(pollSucceeds(share).toFixed(3)).toBe(commit);
    }
    expect(doc).toContain('**≥ 60 %** reward likely, **40–60 %** uncertain, **< 40 %** likely lost');
  });

  it('states the precision caveat (network/peer/peer.go, network/network.go NodeUptime)', () => {
    expect(doc).toContain('Peers report whole percents, **rounded down**');
    expect(doc).toContain('The node counts **its own stake as 100 %** and as rewarding');
  });

  it('says uptime_requirement is the base, and ACP-267 applies whatever it says (options.go)', () => {
    expect(doc).toContain('ACP-267 applies **whatever the base requirement**');
    expect(doc).toContain('`validator.uptime_requirement` is that base');
    expect(doc).toContain('**no API exposes it**');
    expect(doc).toContain('**downtime budget**');
  });

  it('says what a restart does to info.uptime, and how the budget is estimated', () => {
    expect(doc).toContain('`info.uptime` is a **snapshot**, not a history');
    expect(doc).toContain('### The downtime budget is an estimate');
  });
});
