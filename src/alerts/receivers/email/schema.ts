/**
 * `email:` settings, Alertmanager's `email_configs` names: recipients, sender, the SMTP server as
 * `host:port` (465, or `implicit_tls`: TLS from the start; otherwise STARTTLS, required unless
 * `require_tls: false`), an
 * optional login whose password is a secret (inline or from a file), and the TLS trust to use.
 */
import { z } from 'zod';
import { fileContent, secretField, secretValue } from '../../../config/primitives.js';
import { defineReceiverSchema, isLoopbackHost, type Problem } from '../primitives.js';

/** An address as `user@host` or `Name <user@host>`: checked loosely, the SMTP server has the last word. */
const ADDRESS = /^(?:[^<>@\s][^<>]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s,]+@[^<>@\s,]+)$/;
const SMARTHOST = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

export interface EmailSettings {
  to: string[];
  from: string;
  host: string;
  port: number;
  hello?: string;
  username?: string;
  password?: string;
  /** TLS from the first byte (port 465's SMTPS) rather than STARTTLS. */
  implicitTls: boolean;
  requireTls: boolean;
  tls: { ca?: string; insecureSkipVerify: boolean; serverName?: string };
}

const addresses = (to: string | string[] | undefined): string[] =>
  (Array.isArray(to) ? to : (to ?? '').split(','))
    .map((a) => a.trim())
    .filter((a) => a !== '');

export default defineReceiverSchema({
  kind: 'email',
  slice: z
    .strictObject({
      to: z.union([z.string(), z.array(z.string())]).optional().describe('Recipients: a list, or one string with commas between addresses.'),
      from: z.string().optional().describe('Sender address (From:).'),
      smarthost: z.string().optional().describe('SMTP server as host:port; port 465 is implicit TLS, others use STARTTLS.'),
      hello: z.string().optional().describe('Host name to greet the SMTP server with (EHLO).'),
      auth_username: z.string().optional().describe('SMTP login (AUTH PLAIN or LOGIN), if the server needs one.'),
      ...secretField('auth_password'),
      implicit_tls: z.boolean().optional().describe('TLS from the first byte (SMTPS) instead of STARTTLS; default: when the port is 465.'),
      require_tls: z.boolean().prefault(true).describe('Refuse to send unless the connection is TLS (STARTTLS or implicit); false uses STARTTLS only when offered.'),
      tls_config: z
        .strictObject({
          ca_file: fileContent('ca_file').optional().describe('PEM file of the CA to trust for the SMTP server.'),
          server_name: z.string().optional().describe('Name to verify the server certificate against.'),
          insecure_skip_verify: z.boolean().prefault(false).describe('Skip verifying the server certificate (testing only).'),
        })
        .optional(),
    })
    .describe('Email over SMTP (STARTTLS or implicit TLS).'),
  check(s) {
    const problems: Problem[] = [];
    const to = addresses(s.to);
    if (to.length === 0) problems.push({ field: 'to', message: 'email needs at least one address in to' });
    const bad = to.find((a) => !ADDRESS.test(a));
    if (bad) problems.push({ field: 'to', message: `email to: "${bad}" is not an email address` });
    if (!s.from || !ADDRESS.test(s.from.trim())) problems.push({ field: 'from', message: 'email needs a from address' });
    const host = SMARTHOST.exec(s.smarthost ?? '');
    if (!host || Number(host[2]) < 1 || Number(host[2]) > 65535) problems.push({ field: 'smarthost', message: 'email needs a smarthost as host:port (e.g. smtp.gmail.com:587)' });
    if (secretValue(s, 'auth_password') && !s.auth_username) problems.push({ field: 'auth_username', message: 'email auth_password needs an auth_username' });
    return problems;
  },
  resolve(s) {
    const [, host, port] = SMARTHOST.exec(s.smarthost!)!;
    const password = secretValue(s, 'auth_password');
    const settings: EmailSettings = {
      to: addresses(s.to),
      from: s.from!.trim(),
      host: host!.replace(/^\[|\]$/g, ''),
      port: Number(port),
      ...(s.hello ? { hello: s.hello } : {}),
      ...(s.auth_username ? { username: s.auth_username } : {}),
      ...(password ? { password } : {}),
      implicitTls: s.implicit_tls ?? Number(port) === 465,
      requireTls: s.require_tls,
      tls: {
        insecureSkipVerify: s.tls_config?.insecure_skip_verify ?? false,
        ...(s.tls_config?.ca_file ? { ca: s.tls_config.ca_file } : {}),
        ...(s.tls_config?.server_name ? { serverName: s.tls_config.server_name } : {}),
      },
    };
    return { settings, secrets: password ? [password] : [] };
  },
  cleartext: (s) =>
    s.password !== undefined && !s.implicitTls && !s.requireTls && !isLoopbackHost(s.host)
      ? { field: 'require_tls', what: 'require_tls: false with auth_password: the password goes out in cleartext (AUTH PLAIN) to a server that does not offer STARTTLS, or when someone on the path strips it' }
      : undefined,
});
