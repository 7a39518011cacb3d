/** `discord:` settings: the webhook URL (a secret: the token is in its path), inline or from a file. */
import { z } from 'zod';
import { secretField, secretValue } from '../../../config/primitives.js';
import { defineReceiverSchema, isCleartextUrl, urlProblem, urlSecrets } from '../primitives.js';

export default defineReceiverSchema({
  kind: 'discord',
  slice: z.strictObject({ ...secretField('url') }).describe('Discord webhook.'),
  check: (s) => urlProblem('discord', secretValue(s, 'url'), true),
  resolve(s) {
    const url = secretValue(s, 'url')!;
    return { settings: { url }, secrets: urlSecrets(url) };
  },
  cleartext: (s) => (isCleartextUrl(s.url) ? { field: 'url', what: 'an http:// url: the webhook URL is the credential, and anyone on the path can read it' } : undefined),
});
