/** Delivers one batch with a receiver built from its config, through the real POST path, to a real local server. */
import { poster } from '../../src/alerts/receivers/post.js';
import { send } from '../../src/alerts/receivers/index.js';
import type { Notes } from '../../src/alerts/receivers/receiver.js';
import { receiverSchema } from '../../src/alerts/receivers/schemas.js';
import type { NotificationBatch } from '../../src/alerts/types.js';
import { HttpClient } from '../../src/transport/client.js';
import { startCapture, type Captured } from './capture.js';

export async function deliverTo(config: (url: string) => unknown, batch: NotificationBatch): Promise<Captured[]> {
  const capture = await startCapture(() => ({ status: 200 }));
  try {
    await sendWith(config(capture.url), batch);
    return capture.requests;
  } finally {
    await capture.close();
  }
}

/** Sends one batch with the receiver this config makes (and its notes, as its outbox would give them). */
export async function sendWith(config: unknown, batch: NotificationBatch, notes?: Notes): Promise<void> {
  const receiver = receiverSchema.parse(config);
  const http = new HttpClient({ maxResponseBytes: 65_536, userAgent: 'avahealth-test' });
  await send(batch, receiver, { externalUrl: 'http://avahealth:9660', now: Date.parse('2026-11-22T12:00:00.000Z'), post: poster(http), ...(notes ? { notes } : {}) });
}
