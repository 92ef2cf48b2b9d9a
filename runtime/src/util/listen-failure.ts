import { ensureError, RuntimeError } from '../errors/runtime-error.js';

/**
 * Runs a listener's `start`; when it cannot bind, the error names the flag that chose the port (a bare EADDRINUSE
 * leaves the user guessing which of svcd's listeners collided).
 */
export async function listenFor<T>(flag: string, host: string, port: number, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    const e = ensureError(err);
    const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    // Node sets `code`; gRPC only puts the reason in its message.
    const inUse = (e as NodeJS.ErrnoException).code === 'EADDRINUSE' || e.message.includes('EADDRINUSE');
    const problem = inUse ? `address ${address} is already in use` : `cannot listen on ${address}: ${e.message}`;
    throw new RuntimeError('ERR_CONFIG_INVALID', `--${flag} ${port}: ${problem}`, { cause: err });
  }
}
