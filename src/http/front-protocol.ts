/** The messages between the main thread (front.ts) and the HTTP front's worker (front-worker.ts). */
import type { AddressInfo } from 'node:net';
import type { RequestHead } from './server.js';
import type { WebSecurity } from './webconfig.js';

export interface WorkerSettings {
  host: string;
  port: number;
  security?: WebSecurity;
  /** The main thread's heartbeat (heartbeat.ts). */
  heartbeat: SharedArrayBuffer;
  staleAfterMs: number;
}

export interface ReplyMessage {
  type: 'reply';
  id: number;
  status: number;
  contentType: string;
  body: string | Uint8Array;
  headers?: Record<string, string>;
}

export type MainToFront = ReplyMessage | { type: 'security'; security: WebSecurity } | { type: 'close' };

export type FrontToMain =
  | { type: 'listening'; address: AddressInfo }
  | { type: 'listen-failed'; message: string; code?: string }
  | { type: 'request'; id: number; head: RequestHead; body: Uint8Array; tooLarge: boolean }
  | { type: 'error'; message: string; stack?: string }
  | { type: 'closed' };
