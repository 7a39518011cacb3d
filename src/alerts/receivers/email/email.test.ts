import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batch, notice } from '../../../../test/helpers/notices.js';
import { sendWith } from '../../../../test/helpers/receivers.js';
import { makeCertificate, requireAiosmtpd, startSmtp } from '../../../../test/helpers/smtp.js';
import { waitFor } from '../../../../test/helpers/harness.js';
import { notesFile, ReceiverNotes } from '../notes.js';
import { DeliveryError } from '../receiver.js';
import { receiverSchema } from '../schemas.js';
import { emailMessage, incidentMessageId } from './send.js';

const PASSWORD = 'smtp-SECRET-pass-8888';

describe('email: config slice and secrets', () => {
  it("takes Alertmanager email_configs names; the password (inline or from a file) is a secret", () => {
    const dir = mkdtempSync(join(tmpdir(), 'avahealth-email-'));
    writeFileSync(join(dir, 'password'), `${PASSWORD}\n`);
    const receiver = receiverSchema.parse({
      name: 'mail',
      email: { to: 'ops@example.com, Validator Team <validators@example.com>', from: 'avahealth@example.com', smarthost: 'smtp.example.com:587', auth_username: 'avahealth', auth_password_file: join(dir, 'password') },
    });
    expect(receiver).toMatchObject({
      kind: 'email',
      settings: { to: ['ops@example.com', 'Validator Team <validators@example.com>'], from: 'avahealth@example.com', host: 'smtp.example.com', port: 587, username: 'avahealth', password: PASSWORD, implicitTls: false, requireTls: true },
      secrets: [PASSWORD],
    });
    expect(receiverSchema.parse({ name: 'm', email: { to: ['a@example.com'], from: 'b@example.com', smarthost: 'smtp.gmail.com:465' } })).toMatchObject({ settings: { implicitTls: true, requireTls: true }, secrets: [] });
  });

  it('says what is wrong, at the field', () => {
    const problems = (email: unknown) => receiverSchema.safeParse({ name: 'm', email }).error?.issues.map((i) => [i.path.join('.'), i.message]);
    expect(problems({ to: 'ops@example.com', from: 'a@example.com', smarthost: 'smtp.example.com' })).toEqual([['email.smarthost', 'receiver "m": email needs a smarthost as host:port (e.g. smtp.gmail.com:587)']]);
    expect(problems({ to: 'not an address', from: 'a@example.com', smarthost: 'h:25' })).toEqual([['email.to', 'receiver "m": email to: "not an address" is not an email address']]);
    expect(problems({ to: [], smarthost: 'h:25', auth_password: 'x' })).toEqual([
      ['email.to', 'receiver "m": email needs at least one address in to'],
      ['email', 'receiver "m": email needs a from address'],
      ['email', 'receiver "m": email auth_password needs an auth_username'],
    ]);
  });
});

describe('email: the message', () => {
  const settings = { from: 'avahealth@example.com', to: ['ops@example.com'] };

  it('the firing email is its incident thread root; its resolve replies to it', () => {
    const firing = emailMessage(batch([notice('C'), notice('P')]), settings, 'http://avahealth:9660');
    expect(firing.messageId).toBe(incidentMessageId(notice('C'), settings.from));
    expect(firing.messageId).toMatch(/^<avahealth\.[0-9a-f]{32}@example\.com>$/);
    expect(firing).not.toHaveProperty('inReplyTo');
    expect(firing.subject).toBe('[FIRING] validator-1: C and P failing');
    const resolved = emailMessage(batch([notice('P', 'resolved')]), settings, 'http://avahealth:9660');
    expect(resolved.subject).toBe('[RESOLVED] validator-1: P recovered');
    // without notes P's thread is the one its own id would have had; with notes, the email that announced it
    expect(resolved.inReplyTo).toBe(incidentMessageId(notice('P'), settings.from));
    const notes = new ReceiverNotes(notesFile(mkdtempSync(join(tmpdir(), 'avahealth-email-notes-')), 'mail'));
    void notes.update({ 'fp-P': `${notice('P').startsAt} ${firing.messageId}` });
    const threaded = emailMessage(batch([notice('P', 'resolved')]), settings, 'http://avahealth:9660', notes);
    expect([threaded.inReplyTo, threaded.references]).toEqual([firing.messageId, [firing.messageId]]);
    // the same batch always has the same Message-ID (a re-send after a crash is the same email)
    expect(threaded.messageId).toBe(emailMessage(batch([notice('P', 'resolved')]), settings, 'x', notes).messageId);
  });

  it('a firing sent again after a crash (its notes written, its delivery mark not) is the same email', async () => {
    const notes = new ReceiverNotes(notesFile(mkdtempSync(join(tmpdir(), 'avahealth-email-notes-')), 'mail'));
    const first = emailMessage(batch([notice('C'), notice('P')]), settings, 'http://avahealth:9660', notes);
    await notes.update({ 'fp-C': `${notice('C').startsAt} ${first.messageId}`, 'fp-P': `${notice('P').startsAt} ${first.messageId}` });
    const again = emailMessage(batch([notice('C'), notice('P')]), settings, 'http://avahealth:9660', notes);
    expect(again).toEqual(first);
  });
});

const python = requireAiosmtpd('the email receiver against a real SMTP server');

describe.runIf(python)('email: against a real SMTP server (aiosmtpd)', () => {
  const cert = python ? makeCertificate() : undefined;
  let starttls: Awaited<ReturnType<typeof startSmtp>>;
  let implicit: Awaited<ReturnType<typeof startSmtp>>;
  let plain: Awaited<ReturnType<typeof startSmtp>>;
  const config = (smarthost: string, extra: Record<string, unknown> = {}) => ({
    name: 'mail',
    email: { to: ['ops@example.com', 'Validator Team <validators@example.com>'], from: 'avahealth <avahealth@example.com>', smarthost, tls_config: { ca_file: cert!.cert }, ...extra },
  });

  beforeAll(async () => {
    [starttls, implicit, plain] = await Promise.all([
      startSmtp(python!, { mode: 'starttls', cert, user: 'avahealth', password: PASSWORD }),
      startSmtp(python!, { mode: 'implicit', cert, user: 'avahealth', password: PASSWORD }),
      startSmtp(python!, { mode: 'plain' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([starttls?.close(), implicit?.close(), plain?.close()]);
  });

  it('STARTTLS and AUTH: both parts, every recipient, and a resolve threaded under its firing', async () => {
    const notes = new ReceiverNotes(notesFile(mkdtempSync(join(tmpdir(), 'avahealth-email-notes-')), 'mail'));
    const receiver = config(starttls.smarthost, { auth_username: 'avahealth', auth_password: PASSWORD });
    await sendWith(receiver, batch([notice('C', 'firing', 'critical')]), notes);
    await sendWith(receiver, batch([notice('C', 'resolved')]), notes);
    const [firing, resolved] = await waitFor('two emails', () => (starttls.received().length === 2 ? starttls.received() : undefined));
    expect(firing).toMatchObject({ tls: true, login: 'avahealth', mailFrom: 'avahealth@example.com', rcptTos: ['ops@example.com', 'validators@example.com'], contentType: 'multipart/alternative' });
    expect(firing!.headers).toMatchObject({ subject: '[FIRING] validator-1: C failing', from: 'avahealth <avahealth@example.com>', to: 'ops@example.com, Validator Team <validators@example.com>', 'auto-submitted': 'auto-generated' });
    expect(firing!.text!.replace(/\r\n/g, '\n')).toContain('* validator-1: check C failing\n  C <broken> & "odd"\n  (AvalancheCheckFailing · critical)\n');
    expect(firing!.html).toContain('<div style="font-weight:600">validator-1: check C failing</div><div style="color:#59636e;margin-top:2px">C &lt;broken&gt; &amp; &quot;odd&quot;</div>');
    expect(firing!.html).toContain('<a href="http://avahealth:9660/targets/validator-1">');
    expect(firing!.headers['in-reply-to']).toBeUndefined();
    const root = firing!.headers['message-id']!;
    expect(root).toBe(incidentMessageId(notice('C'), 'avahealth@example.com'));
    expect(resolved!.headers).toMatchObject({ subject: '[RESOLVED] validator-1: C recovered', 'in-reply-to': root, references: root });
    expect(resolved!.headers['message-id']).not.toBe(root);
    expect(resolved!.text).toContain('validator-1: C recovered');
    expect(starttls.raw(1)).not.toContain(PASSWORD);
  });

  it('implicit TLS (SMTPS) with AUTH', async () => {
    await sendWith(config(implicit.smarthost, { implicit_tls: true, auth_username: 'avahealth', auth_password: PASSWORD }), batch([notice('X')]));
    const [mail] = await waitFor('the email', () => (implicit.received().length === 1 ? implicit.received() : undefined));
    expect(mail).toMatchObject({ tls: true, login: 'avahealth', headers: { subject: '[FIRING] validator-1: X failing' } });
  });

  it('a wrong password is rejected and not retried; require_tls sends nothing to a server without STARTTLS; no error holds the password', async () => {
    const failure = (receiver: unknown) => sendWith(receiver, batch([notice('C')])).then(() => undefined, (err: unknown) => err as DeliveryError);
    const denied = await failure(config(starttls.smarthost, { auth_username: 'avahealth', auth_password: 'wrong-password' }));
    expect(denied).toBeInstanceOf(DeliveryError);
    expect([denied!.retryable, denied!.reason]).toEqual([false, 'smtp_5xx']);
    expect(denied!.message).toMatch(/^SMTP 535 /);
    const noTls = await failure(config(plain.smarthost));
    // aiosmtpd without TLS answers STARTTLS with 454: a transient SMTP reply, retried
    expect([noTls!.message, noTls!.retryable, noTls!.reason]).toEqual(['SMTP 454 TLS not available', true, 'smtp_4xx']);
    expect(plain.received()).toEqual([]);
    // require_tls: false sends over a server without TLS
    await sendWith(config(plain.smarthost, { require_tls: false }), batch([notice('C')]));
    await waitFor('the plain email', () => plain.received().length === 1);
    expect(plain.received()[0]!.tls).toBe(false);
    for (const err of [denied, noTls]) expect(err!.message).not.toContain(PASSWORD);
  });

  it('an unreachable server is retried', async () => {
    const closed = await startSmtp(python!, { mode: 'plain' });
    await closed.close();
    const err = await sendWith(config(closed.smarthost), batch([notice('C')])).then(() => undefined, (e: unknown) => e as DeliveryError);
    expect([err!.retryable, err!.reason]).toEqual([true, 'network']);
  });
});

describe('email: notes file', () => {
  it('holds message ids only', async () => {
    const file = notesFile(mkdtempSync(join(tmpdir(), 'avahealth-email-notes-')), 'mail');
    await new ReceiverNotes(file).update({ 'fp-C': '2026-11-22T12:00:00.000Z <avahealth.0@example.com>' });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ notes: { 'fp-C': '2026-11-22T12:00:00.000Z <avahealth.0@example.com>' } });
  });
});
