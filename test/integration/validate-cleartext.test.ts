/**
 * `validate` warns of credentials that would travel without TLS (issue 45.9): an SMTP password with
 * `require_tls: false` (AUTH PLAIN in cleartext wherever STARTTLS is missing or stripped), a webhook
 * with a secret header or user:password over http://, a Telegram bot token to an http:// Bot API, a
 * node's bearer token over http:// to another machine. Loopback stays on the machine: no warning.
 * Warnings, not errors: the config stays valid (exit 0).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { writeConfig } from '../helpers/harness.js';

describe('validate: credentials without TLS', () => {
  it('warns at each one, with its position; loopback and TLS are quiet', async () => {
    const file = writeConfig(`nodes:
  - {name: far, url: "http://10.0.0.5:9650", bearer_token: "far-token-0123456789"}
  - {name: near, url: "http://127.0.0.1:9650", bearer_token: "near-token-0123456789"}
  - {name: safe, url: "https://10.0.0.6:9650", bearer_token: "safe-token-0123456789"}
  - {name: open, url: "http://10.0.0.7:9650"}
alerts:
  receivers:
    - name: mail
      email: {to: ops@example.com, from: av@example.com, smarthost: "smtp.example.com:587", auth_username: av, auth_password: "mail-password-0123", require_tls: false}
    - name: mail-tls
      email: {to: ops@example.com, from: av@example.com, smarthost: "smtp.example.com:587", auth_username: av, auth_password: "mail-password-0123"}
    - name: hook
      webhook: {url: "http://hooks.internal/x", headers: {Authorization: "Bearer hook-token-0123456789", Accept: application/json}}
    - name: hook-user
      webhook: {url: "http://user:hook-pass-0123@hooks.internal/y"}
    - name: hook-plain
      webhook: {url: "http://hooks.internal/z"}
    - name: tg
      telegram: {bot_token: "123456:AAAAAAAAAAAAAAAAAAAAAAAAAA", chat_id: 1, api_url: "http://bot.internal"}
`);
    const { code, stdout, stderr } = await runCli(['validate', '--config', file]);
    expect(code).toBe(0);
    expect(stdout).toContain('valid');
    const warnings = stderr.split('\n').filter((l) => l.endsWith('(warning)'));
    expect(warnings).toEqual([
      `${file}:2:22: node "far" sends credentials (a password, token, API key or header value) over http:// to 10.0.0.5:9650: anyone on the path can read them; use https:// (warning)`,
      expect.stringMatching(new RegExp(`^${file}:9:\\d+: receiver "mail": require_tls: false with auth_password: the password goes out in cleartext \\(AUTH PLAIN\\).*; use TLS \\(warning\\)$`)),
      expect.stringMatching(new RegExp(`^${file}:13:\\d+: receiver "hook": an http:// url with the header authorization: its value .* goes out in cleartext; use TLS \\(warning\\)$`)),
      expect.stringMatching(new RegExp(`^${file}:15:\\d+: receiver "hook-user": an http:// url with user:password: the basic-auth credentials go out in cleartext; use TLS \\(warning\\)$`)),
      expect.stringMatching(new RegExp(`^${file}:19:\\d+: receiver "tg": an http:// api_url: the bot token \\(in the URL path\\) goes out in cleartext; use TLS \\(warning\\)$`)),
    ]);
    // The warning never repeats a secret.
    for (const secret of ['far-token-0123456789', 'mail-password-0123', 'hook-token-0123456789', 'hook-pass-0123', 'AAAAAAAAAAAAAAAAAAAAAAAAAA']) expect(stderr).not.toContain(secret);
  });
});
