/**
 * Email over SMTP through nodemailer: one message per batch with a plain-text and an HTML part.
 * Threading: the email that announces an incident has a Message-ID derived from the incident
 * (fingerprint and startsAt), so a re-send after a crash is the same message; every later email
 * about it (reminder, severity change, resolve) carries `In-Reply-To` and `References` to that
 * email, whose id the receiver's notes keep (the derived id when they do not).
 */
import { createHash } from 'node:crypto';
import { cutText, snippet, wellFormed } from '../../../util/text.js';
import type { AlertNotice, NotificationBatch } from '../../types.js';
import { defineSender, DeliveryError, type Notes } from '../receiver.js';
import { escapeHtml, messageOf } from '../text.js';
import type { EmailSettings } from './schema.js';

const TIMEOUT_MS = 10_000;
const MAX_SUBJECT = 250;
const MAX_FACTS = 2000;
const MAX_EXPLAINER = 4000;
/** Colours of the title and of each alert's mark, and the HTML part's muted text. */
const TONES = { critical: '#cf222e', warning: '#9a6700', resolved: '#1a7f37' };
const MAX_REFERENCES = 10;

const hash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);
const domainOf = (from: string) => /@([^>\s]+)>?$/.exec(from)?.[1] ?? 'avahealth.invalid';

/** The Message-ID of the email that announces this incident. */
export function incidentMessageId(alert: AlertNotice, from: string): string {
  return `<avahealth.${hash(`${alert.fingerprint}\n${alert.startsAt}`)}@${domainOf(from)}>`;
}

/** The Message-ID noted for this incident (the email that announced it), if any. */
function noted(alert: AlertNotice, notes: Notes | undefined): string | undefined {
  const [startsAt, id] = (notes?.get(alert.fingerprint) ?? '').split(' ');
  return startsAt === alert.startsAt && id ? id : undefined;
}

/** The email an incident's thread starts from: as noted when it was sent, else as derived. */
const threadOf = (alert: AlertNotice, from: string, notes: Notes | undefined) => noted(alert, notes) ?? incidentMessageId(alert, from);

/** A new incident's first notice (sent again after a crash, it is still the one that opens it). */
function opens(alert: AlertNotice, from: string, notes: Notes | undefined): boolean {
  const id = noted(alert, notes);
  return alert.kind === 'firing' && (id === undefined || id === incidentMessageId(alert, from));
}

export function emailMessage(batch: NotificationBatch, settings: Pick<EmailSettings, 'from' | 'to'>, externalUrl: string, notes?: Notes) {
  const opening = batch.alerts.find((a) => opens(a, settings.from, notes));
  const messageId = opening ? incidentMessageId(opening, settings.from) : `<avahealth.${hash(`batch\n${batch.id}`)}@${domainOf(settings.from)}>`;
  // The threads this email continues: those of the incidents it does not open.
  const continued = batch.alerts.filter((a) => a.kind !== 'test' && !opens(a, settings.from, notes));
  const threads = [...new Set(continued.map((a) => threadOf(a, settings.from, notes)))].filter((id) => id !== messageId).slice(0, MAX_REFERENCES);
  const message = messageOf(batch, externalUrl);
  const oneLine = (text: string) => wellFormed(text).replace(/[\u0000-\u001f\u007f]+/g, ' ');
  const title = oneLine(message.title);
  const alerts = message.alerts.map((a) => ({ ...a, facts: cutText(oneLine(a.facts), MAX_FACTS), explainer: a.explainer ? cutText(oneLine(a.explainer), MAX_EXPLAINER) : undefined }));
  const html = [
    '<!doctype html><html><body style="font-family:-apple-system,Segoe UI,Roboto,sans-serif;font-size:15px;line-height:1.45;color:#1f2328;max-width:46em">',
    `<h2 style="font-size:18px;margin:0 0 12px;color:${TONES[message.tone]}">${escapeHtml(title)}</h2>`,
    ...alerts.map(
      (a) =>
        `<div style="margin:0 0 14px;padding-left:10px;border-left:4px solid ${TONES[a.tone]}"><div style="font-weight:600">${escapeHtml(a.facts)}</div>${a.explainer ? `<div style="color:#59636e;margin-top:2px">${escapeHtml(a.explainer)}</div>` : ''}<div style="color:#59636e;font-size:13px;margin-top:2px">${escapeHtml(a.tag)}</div></div>`,
    ),
    `<p style="font-size:13px;color:#59636e"><a href="${escapeHtml(message.link)}">${escapeHtml(message.linkText)}</a> · ${message.at}</p>`,
    '</body></html>',
  ].join('\n');
  const text = [title, '', ...alerts.flatMap((a) => [`* ${a.facts}`, ...(a.explainer ? [`  ${a.explainer}`] : []), `  (${a.tag})`, '']), `${message.link} · ${message.at}`, ''].join('\n');
  return {
    from: settings.from,
    to: settings.to,
    subject: cutText(`[${message.tone === 'resolved' ? 'RESOLVED' : 'FIRING'}] ${title}`, MAX_SUBJECT),
    text,
    html,
    messageId,
    date: new Date(batch.createdAt),
    ...(threads.length > 0 ? { inReplyTo: threads[0], references: threads } : {}),
    headers: { 'Auto-Submitted': 'auto-generated', 'X-Avahealth-Target': batch.target },
  };
}

/** SMTP's answer as a delivery outcome: a 4xx reply is transient (retried), a 5xx one permanent. */
function classify(err: unknown): DeliveryError {
  const e = err as { code?: string; responseCode?: number; response?: string; message?: string };
  const code = e.responseCode;
  if (typeof code === 'number' && code >= 400 && code < 600) {
    const said = snippet(e.response ?? e.message ?? '');
    return new DeliveryError(`SMTP ${said.startsWith(String(code)) ? said : `${code}: ${said}`}`, code < 500, code < 500 ? 'smtp_4xx' : 'smtp_5xx');
  }
  const message = `SMTP: ${snippet(e.message ?? String(err))}`;
  if (e.code === 'EAUTH') return new DeliveryError(message, false, 'smtp_5xx');
  return new DeliveryError(message, true, e.code === 'ETIMEDOUT' ? 'timeout' : 'network');
}

export default defineSender('email', async (batch, receiver, ctx) => {
  const { settings } = receiver;
  const message = emailMessage(batch, settings, ctx.externalUrl, ctx.notes);
  // Loaded on first use: nodemailer (and what it pulls in, Node's own fetch among it) only where email is configured.
  const { createTransport } = await import('nodemailer');
  const transport = createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.implicitTls,
    requireTLS: settings.requireTls && !settings.implicitTls,
    ...(settings.hello ? { name: settings.hello } : {}),
    ...(settings.username ? { auth: { user: settings.username, pass: settings.password ?? '' } } : {}),
    tls: { rejectUnauthorized: !settings.tls.insecureSkipVerify, ...(settings.tls.ca ? { ca: settings.tls.ca } : {}), ...(settings.tls.serverName ? { servername: settings.tls.serverName } : {}) },
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: 2 * TIMEOUT_MS,
  });
  try {
    await transport.sendMail(message);
  } catch (err) {
    throw classify(err);
  } finally {
    transport.close();
  }
  const notes = ctx.notes;
  if (!notes) return;
  const changes: Record<string, string | undefined> = {};
  for (const alert of batch.alerts) {
    if (alert.status === 'resolved') changes[alert.fingerprint] = undefined;
    else if (!noted(alert, notes)) changes[alert.fingerprint] = `${alert.startsAt} ${message.messageId}`;
  }
  if (Object.keys(changes).length > 0) await notes.update(changes);
});
