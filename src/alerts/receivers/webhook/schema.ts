/** `webhook:` settings: a URL and an optional Standard Webhooks signing secret, each inline or from a file. */
import { z } from 'zod';
import { headers, secretField, secretHeaderValues, secretValue } from '../../../config/primitives.js';
import { defineReceiverSchema, isCleartextUrl, urlProblem, urlSecrets } from '../primitives.js';

export interface WebhookSettings {
  url: string;
  secret?: string;
  headers: Record<string, string>;
}

export default defineReceiverSchema({
  kind: 'webhook',
  slice: z
    .strictObject({ ...secretField('url'), ...secretField('secret'), headers: headers.optional().describe('Extra request headers.') })
    .describe('Alertmanager-format JSON (version 4), signed per Standard Webhooks when secret is set.'),
  check: (s) => urlProblem('webhook', secretValue(s, 'url'), true),
  resolve(s) {
    const url = secretValue(s, 'url')!;
    const secret = secretValue(s, 'secret');
    const settings: WebhookSettings = { url, headers: s.headers ?? {}, ...(secret ? { secret } : {}) };
    return { settings, secrets: [...urlSecrets(url), ...(secret ? [secret] : []), ...secretHeaderValues(settings.headers)] };
  },
  cleartext(s) {
    if (!isCleartextUrl(s.url)) return undefined;
    const { username, password } = new URL(s.url);
    if (username || password) return { field: 'url', what: 'an http:// url with user:password: the basic-auth credentials go out in cleartext' };
    const names = Object.keys(s.headers).filter((name) => secretHeaderValues({ [name]: s.headers[name]! }).length > 0);
    return names.length > 0 ? { field: 'headers', what: `an http:// url with the header${names.length > 1 ? 's' : ''} ${names.join(', ')}: ${names.length > 1 ? 'their values' : 'its value'} (a credential, as far as avahealth can tell) ${names.length > 1 ? 'go' : 'goes'} out in cleartext` } : undefined;
  },
});
