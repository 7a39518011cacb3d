/**
 * `npm run screenshots` (scripts/screenshots.ts) in a real Chromium: the three pictures of
 * docs/images are made from the demo fleet, and what they show of the Telegram messages and the
 * email is each example alert's summary, whole.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { takeScreenshots } from '../../scripts/screenshots.js';
import { requireTool } from '../helpers/tools.js';

const executablePath = requireTool('chromium', 'the screenshots test', ['chromium', 'chromium-browser']);

describe.skipIf(!executablePath)('the screenshots script', () => {
  it('writes the Telegram, email and status page pictures from the demo fleet; the chat shows every summary', { timeout: 180_000 }, async () => {
    const out = mkdtempSync(join(tmpdir(), 'avahealth-screenshots-test-'));
    const { files, telegram, email, example } = await takeScreenshots(out, executablePath!);
    expect(files.map((f) => basename(f))).toEqual(['telegram-message.png', 'email-message.png', 'status-page.png']);
    for (const file of files) {
      const png = readFileSync(file);
      expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
      expect(png.readUInt32BE(16)).toBeGreaterThan(600); // width
      expect(png.length).toBeGreaterThan(20_000);
    }
    const summaries = example.flatMap((b) => b.alerts.filter((a) => a.status === 'firing').map((a) => a.annotations.summary));
    expect(summaries.length).toBeGreaterThanOrEqual(3);
    for (const summary of summaries) expect(telegram.some((text) => text.replace(/\s+/g, ' ').includes(summary)), summary).toBe(true);
    const reward = example.find((b) => b.target === 'validator-4')!.alerts[0]!.annotations.summary;
    expect(email.replace(/\s+/g, ' ')).toContain(reward);
  });
});
