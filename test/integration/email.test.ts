/**
 * The email receiver through the real daemon, to a real SMTP server (aiosmtpd) with STARTTLS and
 * AUTH: the firing email, a SIGKILL, and after the restart the resolve threaded under the firing
 * (In-Reply-To and References); the password (from a file) in no log line, state file or CLI
 * output; and `notify-test`.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outboxFile, replayJournal } from '../../src/alerts/outbox.js';
import { outboxOpSchema } from '../../src/alerts/persisted.js';
import { Journal } from '../../src/state/journal.js';
import { runCli, startCli } from '../helpers/cli.js';
import { allText } from '../helpers/files.js';
import { setScenario, startSim, waitFor, writeConfig } from '../helpers/harness.js';
import { makeCertificate, requireAiosmtpd, startSmtp } from '../helpers/smtp.js';

const PASSWORD = 'smtp-SECRET-pass-8888';
const python = requireAiosmtpd('the email receiver through the daemon');

describe.runIf(python)('email through the daemon', () => {
  it('firing, SIGKILL, and the resolve in the firing\'s thread; the password never shown; notify-test', { timeout: 90_000 }, async () => {
    const cert = makeCertificate();
    const smtp = await startSmtp(python!, { mode: 'starttls', cert, user: 'avahealth', password: PASSWORD });
    const sim = await startSim([{ name: 'validator-1', scenario: 'healthy' }]);
    const file = writeConfig(`
listen: 127.0.0.1:0
state_dir: ./state
external_url: https://avahealth.example.com
nodes:
  - {name: validator-1, url: "${sim.nodeUrl('validator-1')}", interval: 1s, endpoints: [health]}
alerts:
  for_polls: 1
  receivers:
    - name: mail
      email:
        to: ops@example.com, validators@example.com
        from: avahealth <alerts@example.com>
        smarthost: ${smtp.smarthost}
        auth_username: avahealth
        auth_password_file: smtp-password
        tls_config: {ca_file: "${cert.cert}"}
`);
    writeFileSync(join(dirname(file), 'smtp-password'), `${PASSWORD}\n`);
    const stateDir = join(dirname(file), 'state');
    const journal = outboxFile(stateDir, 'mail');
    const queued = () => (existsSync(journal) ? replayJournal(new Journal(journal, outboxOpSchema).read({ repair: false }).ops).items.length : 1);
    let daemon = startCli(['run', '--config', file, '--log.level', 'debug']);
    let emitted = '';
    try {
      await daemon.waitForOutput(/"address":"127\.0\.0\.1:\d+"/);
      await setScenario(sim, 'validator-1', 'network-down');
      await waitFor('the firing email, marked delivered', () => smtp.received().length === 1 && queued() === 0, 20_000);
      const firing = smtp.received()[0]!;
      expect(firing).toMatchObject({ tls: true, login: 'avahealth', rcptTos: ['ops@example.com', 'validators@example.com'] });
      expect(firing.headers.subject).toBe('[FIRING] validator-1: C, P, X and network failing');
      expect(firing.text).toContain('* validator-1: check C failing\r\n  not connected to enough stake');
      expect(firing.html).toContain('<a href="https://avahealth.example.com/targets/validator-1">');
      daemon.child.kill('SIGKILL');
      await daemon.exit;
      emitted += daemon.output();

      daemon = startCli(['run', '--config', file, '--log.level', 'debug']);
      await daemon.waitForOutput(/alert states restored/);
      await setScenario(sim, 'validator-1', 'healthy');
      await waitFor('the resolve', () => smtp.received().length === 2, 20_000);
      const resolved = smtp.received()[1]!;
      const root = firing.headers['message-id']!;
      expect(resolved.headers).toMatchObject({ subject: '[RESOLVED] validator-1: C, P, X and network recovered', 'in-reply-to': root, references: root });
      daemon.child.kill('SIGTERM');
      await daemon.exit;
      emitted += daemon.output();

      const test = await runCli(['notify-test', '--config', file, '--receiver', 'mail']);
      expect(test).toMatchObject({ code: 0, stdout: 'test notification delivered to mail (email)\n' });
      await waitFor('the test email', () => smtp.received().length === 3);
      const testMail = smtp.received()[2]!;
      expect(testMail.headers.subject).toBe('[FIRING] avahealth: avahealth test notification');
      // A test starts no thread and continues none; it links to the status page, not to a target named "avahealth".
      expect(Object.keys(testMail.headers).map((h) => h.toLowerCase())).not.toContain('in-reply-to');
      expect(testMail.text).toContain('https://avahealth.example.com/ ');
      expect(testMail.text).not.toContain('/targets/avahealth');
      emitted += test.stdout + test.stderr + allText(stateDir);
      expect(emitted.includes(PASSWORD)).toBe(false);
    } finally {
      daemon.child.kill('SIGKILL');
      await sim.close();
      await smtp.close();
    }
  });
});
