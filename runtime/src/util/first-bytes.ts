import type net from 'node:net';

/**
 * Reads the first `count` bytes of a new connection in paused mode and hands them to `then`, with the connection's
 * timeout off again; a connection that has not sent them within `timeoutMs`, or fails first, is closed.
 */
export function readFirstBytes(socket: net.Socket, count: number, timeoutMs: number, then: (bytes: Buffer) => void): void {
  const dropped = () => socket.destroy();
  socket.setTimeout(timeoutMs, dropped);
  socket.once('error', dropped);
  const read = () => {
    const bytes = socket.read(count) as Buffer | null;
    if (bytes === null) return void socket.once('readable', read);
    socket.setTimeout(0);
    socket.off('timeout', dropped).off('error', dropped);
    then(bytes);
  };
  read();
}
