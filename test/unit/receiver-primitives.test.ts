/**
 * The checks every receiver kind's config slice shares (src/alerts/receivers/primitives.ts): a URL
 * that must be http(s), whether a credential would cross the network without TLS (`validate`
 * warns), and which parts of a secret URL are redacted.
 */
import { describe, expect, it } from 'vitest';
import { isCleartextUrl, isHttpUrl, isLoopbackHost, urlProblem, urlSecrets } from '../../src/alerts/receivers/primitives.js';

describe("a receiver's URL", () => {
  it('is http(s) and parses, in any case of the scheme', () => {
    for (const url of ['https://hooks.example/x', 'http://10.0.0.1:8080/', 'HTTPS://Hooks.Example/x']) expect(isHttpUrl(url), url).toBe(true);
    for (const url of [undefined, '', 'ftp://hooks.example/x', 'hooks.example/x', 'mailto:ops@example.com', 'x https://hooks.example/', 'ftp://mirror.example/https://hooks.example/', 'https://']) expect(isHttpUrl(url), String(url)).toBe(false);
  });

  it('a missing or wrong one is a problem at `url`, naming the file form where the kind has one', () => {
    expect(urlProblem('slack', 'https://hooks.example/x', true)).toEqual([]);
    expect(urlProblem('slack', undefined, true)).toEqual([{ field: 'url', message: 'slack needs an http(s) url (url or url_file)' }]);
    expect(urlProblem('webhook', 'ftp://x', false)).toEqual([{ field: 'url', message: 'webhook needs an http(s) url' }]);
  });
});

describe('cleartext', () => {
  it('a loopback host never leaves the machine: localhost and its subdomains, 127.0.0.0/8, ::1', () => {
    for (const host of ['localhost', 'LOCALHOST', 'am.localhost', '127.0.0.1', '127.10.20.30', '::1', '[::1]']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['localhost.example', 'notlocalhost', '128.0.0.1', '127.0.0', '127.0.0.1.example', '1127.0.0.1', '::2', '10.0.0.1', '']) expect(isLoopbackHost(host), host).toBe(false);
  });

  it('is http:// to another machine; https, loopback and what does not parse are not', () => {
    expect(isCleartextUrl('http://alertmanager.monitoring:9093/')).toBe(true);
    expect(isCleartextUrl('HTTP://10.0.0.1/')).toBe(true);
    for (const url of ['https://alertmanager.example/', 'http://localhost:9093/', 'http://127.0.0.1:9093/', 'http://[::1]:9093/', 'not a url']) expect(isCleartextUrl(url), url).toBe(false);
  });
});

describe('a secret URL', () => {
  it('is redacted whole, and its path and query on their own when long enough to be a token', () => {
    expect(urlSecrets('https://hooks.slack.com/services/T0/B0/XYZ?a=1')).toEqual(['https://hooks.slack.com/services/T0/B0/XYZ?a=1', '/services/T0/B0/XYZ?a=1']);
    expect(urlSecrets('https://h.example/abcdefg')).toEqual(['https://h.example/abcdefg', '/abcdefg']);
    // shorter than 8 characters ("/", "/hook"): redacting it alone would blank ordinary words in logs
    expect(urlSecrets('https://h.example/abcdef')).toEqual(['https://h.example/abcdef']);
    expect(urlSecrets('https://h.example')).toEqual(['https://h.example']);
  });
});
