/**
 * Connections cannot lock anyone out. Node's server drops every connection beyond
 * `maxConnections`, so sockets that connect and idle (with or without a first request, kept alive
 * by one request now and then) could hold all of them and shut out Prometheus and the kubelet's
 * probe. Well below that cap, each new connection closes the oldest idle ones (no request in
 * flight), so there is always room for one more; a connection whose reply is still being written
 * is left alone (the reply's write deadline bounds it instead).
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** Node refuses connections beyond this many. */
export const MAX_CONNECTIONS = 1024;
/** From this many open connections on, a new one closes the oldest idle ones. */
export const IDLE_EVICTION_AT = 256;

interface Connection {
  socket: Socket;
  /** Requests received and not yet answered: above 0, the connection is not idle. */
  inFlight: number;
}

/** A TLS connection's socket and its TCP socket share the peer address and port. */
const keyOf = (socket: Socket) => `${socket.remoteAddress}|${socket.remotePort}`;

export class ConnectionGuard {
  /** In the order they connected: the first idle one is the oldest. */
  private readonly open = new Map<string, Connection>();

  constructor(server: Server) {
    server.maxConnections = MAX_CONNECTIONS;
    // before the server's own listener, so a TLS socket is known before its handshake
    server.prependListener('connection', (socket: Socket) => this.opened(socket));
  }

  /** Marks the request's connection busy until its reply is done (or the connection closes). */
  track(req: { socket: Socket }, res: { once(event: 'close', listener: () => void): unknown }): void {
    const connection = this.open.get(keyOf(req.socket));
    if (!connection) return;
    connection.inFlight++;
    res.once('close', () => connection.inFlight--);
  }

  private opened(socket: Socket): void {
    const key = keyOf(socket);
    if (this.open.size >= IDLE_EVICTION_AT) this.closeOldestIdle(this.open.size - IDLE_EVICTION_AT + 1);
    this.open.set(key, { socket, inFlight: 0 });
    socket.once('close', () => {
      if (this.open.get(key)?.socket === socket) this.open.delete(key);
    });
  }

  private closeOldestIdle(count: number): void {
    for (const [key, connection] of this.open) {
      if (count === 0) return;
      if (connection.inFlight > 0) continue;
      this.open.delete(key);
      connection.socket.destroy();
      count--;
    }
  }
}
