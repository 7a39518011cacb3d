/**
 * `npm run screenshots`: the pictures in docs/images/, from the demo fleet through the real daemon
 * and a real Chromium (playwright-core, headless; `CHROMIUM` or chromium on PATH):
 *
 * - telegram-message.png: the Telegram messages of the issue's example (L1 balance low, reward at
 *   risk, version behind), their HTML rendered the way Telegram shows it, in a small local page;
 * - email-message.png: an email's HTML part, in a mail reader's frame;
 * - status-page.png: the status page watching the demo fleet.
 *
 * The daemon tells a local webhook; its batches are rendered by the Telegram and email receivers'
 * own code (telegramText, emailMessage), exactly what those receivers send.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { emailMessage } from '../src/alerts/receivers/email/send.js';
import { telegramText } from '../src/alerts/receivers/telegram/send.js';
import type { AlertNotice, NotificationBatch } from '../src/alerts/types.js';
import { Daemon } from '../src/app/daemon.js';
import { loadConfigFile } from '../src/config/load.js';
import { createLogger } from '../src/log.js';
import { demoFleet, fleetConfigYaml } from '../src/sim/fleet.js';
import { SimServer } from '../src/sim/server.js';

const EXTERNAL_URL = 'https://avahealth.example.com';
/** The example, in the order the chat shows it. */
export const EXAMPLE_TARGETS = ['l1-validator', 'validator-4', 'validator-5'];
const EXAMPLE_ALERTS = ['AvalancheL1ValidatorBalanceLow', 'AvalancheValidatorRewardAtRisk', 'AvalancheNodeVersionBehind'];

export function findChromium(): string | undefined {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      const path = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
      if (path) return path;
    } catch {
      // not on PATH
    }
  }
  return undefined;
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Waits until `probe` holds, checking every 50 ms; fails with `what` after `timeoutMs`. */
async function until<T>(what: string, probe: () => T | Promise<T>, timeoutMs: number): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The batches a webhook receiver was told, as the receivers' own renderers take them. */
async function webhookSink() {
  const batches: NotificationBatch[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { groupLabels: { target: string }; alerts: Array<Omit<AlertNotice, 'kind'>> };
      batches.push({ id: String(batches.length), target: body.groupLabels.target, createdAt: Date.now(), alerts: body.alerts.map((a) => ({ ...a, kind: a.status })) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, batches, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * What Telegram's clients do to a message's HTML beyond the tags: its own pictures for the state
 * emoji (drawn here as the circles they are, so no emoji font is needed) and bot commands such as
 * /ack_3f1c0a9b shown as links.
 */
const TELEGRAM_DRAWN: Record<string, string> = { '🔴': '#e53935', '🟠': '#fb8c00', '🟢': '#43a047' };
const asTelegramShows = (html: string) =>
  html.replace(/🔴|🟠|🟢/gu, (emoji) => `<span class="dot" style="background:${TELEGRAM_DRAWN[emoji]}"></span>`).replace(/(^|\s)(\/[a-z]+_[0-9a-f]+)/g, '$1<span class="command">$2</span>');

/** Telegram's look (its web client, light theme): a chat header, bubbles on the chat background. */
function telegramPage(messages: Array<{ html: string; time: string }>): string {
  const bubbles = messages.map((m) => `<div class="bubble"><div class="text">${asTelegramShows(m.html)}</div><div class="time">${m.time}</div></div>`).join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><style>
body { margin: 0; font: 15px/1.35 Roboto, "Segoe UI", "Helvetica Neue", sans-serif; color: #000; }
.chat { width: 720px; background: #c8d6b9 linear-gradient(160deg, #d8e6c5 0%, #b6cfa5 60%, #a9c59d 100%); padding-bottom: 12px; }
.header { display: flex; align-items: center; gap: 12px; background: #fff; padding: 10px 16px; border-bottom: 1px solid #dadce0; }
.avatar { width: 40px; height: 40px; border-radius: 50%; background: #e84142; color: #fff; display: grid; place-items: center; font-weight: 700; font-size: 18px; }
.title { font-weight: 600; } .subtitle { color: #707579; font-size: 13px; }
.bubble { position: relative; max-width: 600px; margin: 10px 16px 0 16px; background: #fff; border-radius: 12px 12px 12px 4px; padding: 7px 11px 20px 11px; box-shadow: 0 1px 2px rgba(16, 35, 47, .15); }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
.text a, .command { color: #3390ec; text-decoration: none; }
.dot { display: inline-block; width: 1em; height: 1em; border-radius: 50%; vertical-align: -0.15em; }
.time { position: absolute; right: 10px; bottom: 4px; font-size: 12px; color: #a0acb6; }
</style></head><body><div class="chat" id="chat">
<div class="header"><div class="avatar">A</div><div><div class="title">Validators on-call</div><div class="subtitle">avahealth bot</div></div></div>
${bubbles}
</div></body></html>`;
}

/** A mail reader's frame around an email's HTML part. */
function emailPage(mail: ReturnType<typeof emailMessage>): string {
  return `<!doctype html><html><head><meta charset="utf-8"><style>
body { margin: 0; font: 14px/1.4 -apple-system, "Segoe UI", Roboto, sans-serif; background: #f3f4f6; }
.reader { width: 820px; background: #fff; border: 1px solid #d0d7de; }
.head { padding: 14px 20px; border-bottom: 1px solid #d0d7de; }
.subject { font-size: 18px; font-weight: 600; margin-bottom: 6px; }
.meta { color: #59636e; }
iframe { border: 0; width: 100%; display: block; }
</style></head><body><div class="reader" id="reader">
<div class="head"><div class="subject">${escape(mail.subject)}</div>
<div class="meta">From ${escape(mail.from)} · To ${escape(mail.to.join(', '))} · ${escape(mail.date.toUTCString())}</div></div>
<iframe id="body" sandbox="allow-same-origin" srcdoc="${escape(mail.html)}"></iframe>
</div></body></html>`;
}

/** Runs the demo fleet and the daemon, and writes the three pictures into `outDir`. */
export async function takeScreenshots(outDir: string, executablePath: string): Promise<{ files: string[]; telegram: string[]; email: string; example: NotificationBatch[] }> {
  mkdirSync(outDir, { recursive: true });
  const sim = new SimServer(demoFleet());
  await sim.listen(0);
  const hook = await webhookSink();
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-screenshots-'));
  const file = join(dir, 'avahealth.yaml');
  writeFileSync(
    file,
    `${fleetConfigYaml(demoFleet(), { baseUrl: sim.baseUrl, listen: '127.0.0.1:0', interval: '1s' })}
state_dir: ./state
external_url: ${EXTERNAL_URL}
alerts:
  for_polls: 1
  receivers:
    - {name: oncall, webhook: {url: "${hook.url}/hook"}}
`,
  );
  const logger = createLogger({ level: 'fatal', format: 'json', destination: new PassThrough() });
  const daemon = new Daemon(loadConfigFile(file), { logger, listen: { host: '127.0.0.1', port: 0 }, enableLifecycle: false, enableAdminApi: false, watchConfig: false, watchIntervalMs: 1000 });
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  try {
    await daemon.start();
    const url = `http://127.0.0.1:${daemon.address!.port}`;
    const batchOf = (target: string, alertname: string) => hook.batches.find((b) => b.target === target && b.alerts.some((a) => a.status === 'firing' && a.labels.alertname === alertname));
    const example = await until('the example alerts at the webhook', () => {
      const found = EXAMPLE_TARGETS.map((t, i) => batchOf(t, EXAMPLE_ALERTS[i]!));
      return found.every(Boolean) ? (found as NotificationBatch[]) : undefined;
    }, 90_000);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });

    const time = (b: NotificationBatch) => new Date(b.createdAt).toISOString().slice(11, 16);
    const html = example.map((b) => telegramText(b, EXTERNAL_URL, { ack: true }));
    await page.setContent(telegramPage(html.map((h, i) => ({ html: h, time: time(example[i]!) }))));
    const telegramFile = join(outDir, 'telegram-message.png');
    await page.locator('#chat').screenshot({ path: telegramFile });
    const telegram = await page.locator('.bubble .text').allInnerTexts();

    const mail = emailMessage(example[1]!, { from: 'avahealth <avahealth@example.com>', to: ['validators@example.com'] }, EXTERNAL_URL);
    await page.setContent(emailPage(mail));
    await page.evaluate(() => {
      const frame = document.getElementById('body') as HTMLIFrameElement;
      frame.style.height = `${frame.contentDocument!.documentElement.scrollHeight + 8}px`;
    });
    const emailFile = join(outDir, 'email-message.png');
    await page.locator('#reader').screenshot({ path: emailFile });
    const email = await page.frameLocator('#body').locator('body').innerText();

    await page.goto(`${url}/`);
    await page.getByText('AvalancheL1ValidatorBalanceLow').first().waitFor();
    const statusFile = join(outDir, 'status-page.png');
    await page.screenshot({ path: statusFile, fullPage: true });
    return { files: [telegramFile, emailFile, statusFile], telegram, email, example };
  } finally {
    await browser.close();
    await daemon.stop();
    await sim.close();
    await hook.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const executablePath = findChromium();
  if (!executablePath) {
    process.stderr.write('chromium is not installed (apt-get install chromium, or set CHROMIUM)\n');
    process.exit(1);
  }
  const out = fileURLToPath(new URL('../docs/images/', import.meta.url));
  const { files } = await takeScreenshots(out, executablePath);
  for (const f of files) process.stdout.write(`wrote ${f}\n`);
}
