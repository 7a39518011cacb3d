/** `alertmanager:` settings: the base URL and how often the firing set is re-sent. */
import { z } from 'zod';
import { duration } from '../../../config/primitives.js';
import { defineReceiverSchema, urlProblem } from '../primitives.js';

export default defineReceiverSchema({
  kind: 'alertmanager',
  slice: z
    .strictObject({
      url: z.string().describe('Alertmanager base URL; alerts are POSTed to /api/v2/alerts.'),
      resend_interval: duration().prefault('1m').describe('How often the firing alerts are re-sent while they fire.'),
      mirror_silences: z
        .boolean()
        .default(true)
        .describe("Mirror avahealth's silences to this Alertmanager (v2 silences API) and keep sending the alerts they hold, which it mutes."),
    })
    .describe('Prometheus Alertmanager (the way to run several replicas: it deduplicates).'),
  check: (s) => urlProblem('alertmanager', s.url, false),
  resolve: (s) => ({ settings: { url: s.url.replace(/\/+$/, ''), resendIntervalMs: s.resend_interval, mirrorSilences: s.mirror_silences }, secrets: [] }),
});
