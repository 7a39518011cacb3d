/** Opening the daemon's address, with a one-line reason when it cannot be had. */

/** The daemon could not start (its address is taken, …): one line for the operator, exit 1. */
export class StartError extends Error {}

const LISTEN_ERRORS: Record<string, string> = {
  EADDRINUSE: 'address already in use (another avahealth, or another program, listens there)',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'address not available on this machine',
  ENOTFOUND: 'no such host',
};

export async function listenOrExplain<T>(open: () => Promise<T>, host: string, port: number): Promise<T> {
  try {
    return await open();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    throw new StartError(`cannot listen on ${host.includes(':') ? `[${host}]` : host}:${port}: ${LISTEN_ERRORS[code] ?? (err as Error).message}`);
  }
}
