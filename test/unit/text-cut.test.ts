/** Text cut for people and for receivers: between characters (never half an emoji), at a word where one ends near the limit. */
import { describe, expect, it } from 'vitest';
import { cutText, prefixWithin, snippet, wellFormed } from '../../src/util/text.js';

const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('cutting text', () => {
  it('never splits a surrogate pair, whatever the length', () => {
    const text = `x${'🔥'.repeat(50)}`;
    for (let max = 0; max <= text.length; max++) {
      const head = prefixWithin(text, max);
      expect(head.length).toBeLessThanOrEqual(max);
      expect(head.length).toBeGreaterThanOrEqual(max - 1);
      expect(LONE.test(head)).toBe(false);
      expect(LONE.test(cutText(text, max))).toBe(false);
    }
  });

  it('keeps grapheme clusters whole: a skin tone, a flag, a family, an accent', () => {
    for (const cluster of ['👍🏽', '🇨🇭', '👨‍👩‍👧', 'é']) {
      const text = cluster.repeat(40);
      for (let max = cluster.length; max < text.length; max++) {
        const head = prefixWithin(text, max);
        expect(head.length % cluster.length).toBe(0);
        expect(max - head.length).toBeLessThan(cluster.length);
      }
    }
  });

  it('a cluster of hundreds of combining marks is cut at a code point rather than dropped whole', () => {
    const zalgo = `a${'\u0301'.repeat(500)}`;
    expect(prefixWithin(zalgo, 100)).toHaveLength(100);
  });

  it('ends at a word when one ends in the last half of the room, with …', () => {
    const text = 'The reward of 117.4 AVAX (and its delegators) is all or nothing. When the period ends, each node votes';
    expect(cutText(text, 40)).toBe('The reward of 117.4 AVAX (and its…');
    expect(cutText(text, 40).length).toBeLessThanOrEqual(40);
    // the next character is a space: the word before it is whole
    expect(cutText('one two three', 8)).toBe('one two…');
    // one long word (an ID, a URL) is cut inside: nothing else would fit
    expect(cutText(`see ${'2faMy'.repeat(20)}`, 30)).toBe(`see ${'2faMy'.repeat(20).slice(0, 25)}…`);
    expect(cutText('short', 40)).toBe('short');
  });

  it('makes text well-formed for UTF-8 receivers; snippets are cut between characters', () => {
    expect(wellFormed('a\ud83db\udc00c🔥')).toBe('a\ufffdb\ufffdc🔥');
    const body = `error: ${'🔥'.repeat(400)}`;
    expect(LONE.test(snippet(body))).toBe(false);
  });
});
