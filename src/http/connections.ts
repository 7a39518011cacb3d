/**
 * What one connection may hold, and that connections cannot lock anyone out.
 *
 * Node's server drops every connection beyond `maxConnections`, so sockets that connect and idle
 * could hold all of them and shut out Prometheus and the kubelet's probe. Well below that cap, each
 * new connection closes the oldest idle ones (no request in flight), and when none is idle, the
 * oldest stalled ones (requests in flight, but nothing of their replies taken by the client for
 * STALLED_AFTER_MS): there is always room for one more. A connection whose reply is being read,
 * however slowly, is left alone (the reply's write deadline bounds it instead).
 *
 * A client may pipeline requests without reading the replies. Node parses every request of what it
 * has read and would have each answered, the replies queued in memory (2,000 status requests took
 * 400 MB). Here at most MAX_ACTIVE requests per connection are handled at a time, and only while
 * less than MAX_QUEUED_BYTES of replies wait to be taken by the client; beyond that the connection
 * stops being read, and one that has sent more than MAX_WAITING requests ahead is closed.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Node refuses connections beyond this many. */
export const MAX_CONNECTIONS = 1024;
/** From this many open connections on, a new one closes the oldest idle (then stalled) ones. */
export const IDLE_EVICTION_AT = 256;
/** Requests of one connection handled at a time (their replies being made or written). */
export const MAX_ACTIVE = 4;
/** Reply bytes a connection may have waiting for its client before its next request is handled. */
export const MAX_QUEUED_BYTES = 1024 * 1024;
/** Requests a connection may have waiting to be handled; one more and the connection is closed. */
export const MAX_WAITING = 64;
/** A connection with requests in flight whose client took nothing for this long may be evicted. */
export const STALLED_AFTER_MS = 5_000;

interface Connection {
  /** The TCP socket (under TLS, the one the TLS socket runs over). */
  socket: Socket;
  /** The socket HTTP reads and writes (the TLS socket under TLS), once a request came. */
  http?: Socket;
  /** Requests received and not yet answered: above 0, the connection is not idle. */
  inFlight: number;
  /** Requests being handled (at most MAX_ACTIVE). */
  active: number;
  /** Requests received and waiting to be handled, in order. */
  waiting: Array<() => void>;
  /** Not read from, by this guard, while MAX_ACTIVE requests are in flight. */
  paused: boolean;
  /** Reply bytes waiting for the kernel when last looked at, and since when they have not gone down. */
  queued: number;
  queuedSince: number;
}

/** A TLS connection's socket and its TCP socket share the peer address and port. */
const keyOf = (socket: Socket) => `${socket.remoteAddress}|${socket.remotePort}`;

/** Ends a connection at once, with a TCP reset: the kernel drops what it still buffers for the client too. */
function reset(socket: Socket): void {
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy(); // a socket without a TCP handle of its own
  }
}

export class ConnectionGuard {
  /** In the order they connected: the first idle one is the oldest. */
  private readonly open = new Map<string, Connection>();

  constructor(
    server: Server,
    private readonly evictionAt = IDLE_EVICTION_AT,
  ) {
    server.maxConnections = MAX_CONNECTIONS;
    // before the server's own listener, so a TLS socket is known before its handshake
    server.prependListener('connection', (socket: Socket) => this.opened(socket));
  }

  /**
   * Runs `handle` for the request now or, when its connection has enough under way, once that has
   * been taken by the client; marks the connection busy until the reply is done.
   */
  admit(req: IncomingMessage, res: ServerResponse, handle: () => void): void {
    const connection = this.open.get(keyOf(req.socket));
    if (!connection) return handle();
    if (!connection.http) {
      connection.http = req.socket;
      req.socket.on('drain', () => this.pump(connection));
      // Node resumes the socket as a request is read to its end: not while this guard holds it
      req.socket.on('resume', () => {
        if (connection.paused && connection.inFlight >= MAX_ACTIVE) req.socket.pause();
      });
    }
    connection.inFlight++;
    let started = false;
    const start = () => {
      started = true;
      handle();
    };
    res.once('close', () => {
      connection.inFlight--;
      if (started) connection.active--;
      else if (connection.waiting.includes(start)) connection.waiting.splice(connection.waiting.indexOf(start), 1);
      this.pump(connection);
    });
    connection.waiting.push(start);
    if (connection.waiting.length > MAX_WAITING) return reset(connection.socket);
    this.pump(connection);
  }

  /**
   * Ends a connection with a TCP reset (a reply's write deadline). Under TLS the TCP socket is
   * reset: the TLS socket has no TCP handle of its own (its resetAndDestroy throws).
   */
  cutOff(socket: Socket): void {
    const connection = this.open.get(keyOf(socket));
    reset(connection && connection.socket !== socket && connection.http === socket ? connection.socket : socket);
    socket.destroy();
  }

  /** Starts waiting requests while there is room; stops reading the connection while there is not. */
  private pump(connection: Connection): void {
    const http = connection.http;
    while (connection.waiting.length > 0 && connection.active < MAX_ACTIVE && (http?.writableLength ?? 0) < MAX_QUEUED_BYTES) {
      connection.active++;
      connection.waiting.shift()!();
    }
    if (!http || http.destroyed) return;
    if (connection.inFlight >= MAX_ACTIVE) {
      connection.paused = true;
      if (!http.isPaused()) http.pause();
    } else if (connection.paused) {
      connection.paused = false;
      http.resume();
    }
  }

  private opened(socket: Socket): void {
    const key = keyOf(socket);
    if (this.open.size >= this.evictionAt) this.evict(this.open.size - this.evictionAt + 1);
    this.open.set(key, { socket, inFlight: 0, active: 0, waiting: [], paused: false, queued: 0, queuedSince: Date.now() });
    socket.once('close', () => {
      if (this.open.get(key)?.socket === socket) this.open.delete(key);
    });
  }

  /** Closes the oldest idle connections, then, if that was not enough, the oldest stalled ones. */
  private evict(count: number): void {
    const now = Date.now();
    for (const pass of ['idle', 'stalled'] as const) {
      for (const [key, connection] of this.open) {
        if (count === 0) return;
        if (pass === 'idle' ? connection.inFlight > 0 : !this.stalled(connection, now)) continue;
        this.open.delete(key);
        if (pass === 'idle') connection.socket.destroy();
        else reset(connection.socket);
        connection.http?.destroy();
        count--;
      }
    }
  }

  /**
   * Requests in flight, and nothing more of the replies taken by the client for STALLED_AFTER_MS:
   * the bytes waiting in the TCP socket's write queue (under TLS too, as the TLS socket writes into
   * it) have not gone down since.
   */
  private stalled(connection: Connection, now: number): boolean {
    if (connection.inFlight === 0) return false;
    const queued = writeQueueSize(connection.socket);
    if (queued === 0 || queued < connection.queued) {
      connection.queued = queued;
      connection.queuedSince = now;
      return false;
    }
    connection.queued = queued;
    return now - connection.queuedSince >= STALLED_AFTER_MS;
  }
}

/** Bytes libuv holds for the TCP socket that the kernel has not taken yet (the client is not reading). */
function writeQueueSize(socket: Socket): number {
  return (socket as unknown as { _handle?: { writeQueueSize?: number } | null })._handle?.writeQueueSize ?? 0;
}
