/** `pagerduty:` settings: the Events API v2 routing key (a secret, inline or from a file) and endpoint. */
import { z } from 'zod';
import { secretField, secretValue } from '../../../config/primitives.js';
import { defineReceiverSchema, isCleartextUrl, urlProblem } from '../primitives.js';

export default defineReceiverSchema({
  kind: 'pagerduty',
  slice: z
    .strictObject({ ...secretField('routing_key'), url: z.string().prefault('https://events.pagerduty.com/v2/enqueue').describe('Events API v2 endpoint.') })
    .describe('PagerDuty Events API v2.'),
  check: (s) => [
    ...urlProblem('pagerduty', s.url, false),
    ...(secretValue(s, 'routing_key') ? [] : [{ field: 'routing_key', message: 'pagerduty needs routing_key or routing_key_file' }]),
  ],
  resolve(s) {
    const routingKey = secretValue(s, 'routing_key')!;
    return { settings: { url: s.url, routingKey }, secrets: [routingKey] };
  },
  cleartext: (s) => (isCleartextUrl(s.url) ? { field: 'url', what: 'an http:// url: the routing key goes out in cleartext' } : undefined),
});
