import { expect } from 'chai';
import net from 'node:net';
import { Readable } from 'node:stream';
import { pino } from 'pino';
import { StreamClients, StreamUnreachableError } from '../../src/internal/stream-client.js';
import { FrameSplitter, frameOf, FrameType, REFUSED, STREAM_PREFACE, uint32Payload } from '../../src/internal/stream-frames.js';
import { StreamServer, type StreamHandler } from '../../src/internal/stream-server.js';

const log = pino({ level: 'silent' });
const OPTIONS = { metadata: {}, connectTimeoutMs: 2_000 };

async function readAll(body: Readable): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return chunks;
}

const chunksOf = (count: number, bytes: number) => Array.from({ length: count }, (_, i) => Buffer.alloc(bytes, 97 + (i % 26)));

/** A stream server on a port of its own that counts the connections it is given. */
async function countingServer(handlers: Record<string, StreamHandler>): Promise<{ address: string; connections: () => number; streams: StreamServer; close: () => void }> {
  const streams = new StreamServer();
  streams.add(handlers, log);
  let connections = 0;
  const listener = net.createServer((socket) => {
    connections += 1;
    streams.accept(socket);
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  return { address: `127.0.0.1:${(listener.address() as net.AddressInfo).port}`, connections: () => connections, streams, close: () => listener.close() };
}

describe('internal streaming calls share one connection per sidecar', () => {
  let clients: StreamClients;
  let released: () => void = () => undefined;
  const handlers: Record<string, StreamHandler> = {
    Echo: async (call) => ({ head: call.head, body: Readable.from(await readAll(call.body)) }),
    // Reads nothing of its body until released, then all of it.
    ReadLater: async (call) => {
      await new Promise<void>((r) => (released = r));
      return { head: { bytes: (await readAll(call.body)).reduce((n, c) => n + c.length, 0) } };
    },
    // Answers with 8 MiB in 128 KiB messages.
    Big: () => Promise.resolve({ head: {}, body: Readable.from(chunksOf(64, 128 * 1024)) }),
    Slow: async () => {
      await new Promise((r) => setTimeout(r, 300));
      return { head: { slow: true } };
    },
  };

  let server: Awaited<ReturnType<typeof countingServer>>;
  beforeEach(async () => {
    clients = new StreamClients();
    server = await countingServer(handlers);
  });
  afterEach(() => {
    clients.close();
    server.close();
  });

  it('makes 200 concurrent calls on one connection, each answered with its own head and body', async () => {
    const replies = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const reply = await clients.call(server.address, 'Echo', { i }, Readable.from([Buffer.from(`body ${i}`), Buffer.from(`more ${i}`)]), OPTIONS);
        return { head: reply.head, body: (await readAll(reply.body)).map(String) };
      }),
    );
    replies.forEach((r, i) => expect(r).to.deep.equal({ head: { i }, body: [`body ${i}`, `more ${i}`] }));
    expect(server.connections()).to.equal(1);
  });

  it('lets a call whose handler reads nothing hold only its own window: the others on the connection go on', async () => {
    const stalled = clients.call(server.address, 'ReadLater', {}, Readable.from(chunksOf(64, 128 * 1024)), OPTIONS);
    // Answered while the other call holds its window unread (it is released only after this).
    const echo = await clients.call(server.address, 'Echo', { other: true }, Readable.from([Buffer.from('x')]), OPTIONS);
    expect((await readAll(echo.body)).map(String)).to.deep.equal(['x']);
    released();
    expect((await stalled).head).to.deep.equal({ bytes: 64 * 128 * 1024 });
    expect(server.connections()).to.equal(1);
  });

  it('lets a caller leave a big answer unread while its other calls are answered, then read all of it', async () => {
    const big = await clients.call(server.address, 'Big', {}, undefined, OPTIONS);
    await new Promise((r) => setTimeout(r, 100));
    const echo = await clients.call(server.address, 'Echo', { meanwhile: true }, undefined, OPTIONS);
    expect(echo.head).to.deep.equal({ meanwhile: true });
    const got = await readAll(big.body);
    expect(got.length).to.equal(64);
    expect(Buffer.concat(got).equals(Buffer.concat(chunksOf(64, 128 * 1024)))).to.equal(true);
  });

  it('when the called sidecar stops: calls under way end whole, a new one is refused unrun (unreachable), and stop waits for them', async () => {
    const slow = clients.call(server.address, 'Slow', {}, undefined, OPTIONS);
    await new Promise((r) => setTimeout(r, 50));
    server.close();
    const stopped = server.streams.stop(5_000);
    const refused = await clients.call(server.address, 'Echo', {}, undefined, OPTIONS).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(StreamUnreachableError);
    expect((await slow).head).to.deep.equal({ slow: true });
    await stopped;
  });

  it('a call that was sent, on a connection cut before its answer, fails as ERR_DIRECT_INVOKE, not as unreachable', async () => {
    const hanging = await countingServer({ Hang: () => new Promise(() => undefined) });
    try {
      const pending = clients.call(hanging.address, 'Hang', {}, undefined, OPTIONS).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 100));
      await hanging.streams.stop(0);
      const err = await pending;
      expect(err).not.to.be.instanceOf(StreamUnreachableError);
      expect((err as { code?: string }).code).to.equal('ERR_DIRECT_INVOKE');
    } finally {
      hanging.close();
    }
  });

  it('a refused call is unreachable (to be made elsewhere) only while nothing of its body was read', async () => {
    // A fake sidecar that refuses every call it is sent, as one does when a call crosses its GoAway.
    const fake = net.createServer((socket) => {
      const splitter = new FrameSplitter(1 << 20);
      let preface = STREAM_PREFACE.length;
      socket.on('data', (d: Buffer) => {
        const frames: Buffer[] = [];
        const skipped = Math.min(preface, d.length);
        preface -= skipped;
        splitter.push(d.subarray(skipped), (type, id) => {
          if (type === FrameType.Open) frames.push(...frameOf(FrameType.Reset, id, REFUSED));
        });
        if (frames.length > 0) socket.write(Buffer.concat(frames));
      });
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    const address = `127.0.0.1:${(fake.address() as net.AddressInfo).port}`;
    try {
      const withoutBody = await clients.call(address, 'Echo', {}, undefined, OPTIONS).catch((e: unknown) => e);
      expect(withoutBody).to.be.instanceOf(StreamUnreachableError);
      const withBody = await clients.call(address, 'Echo', {}, Readable.from([Buffer.from('read already')]), OPTIONS).catch((e: unknown) => e);
      expect(withBody).not.to.be.instanceOf(StreamUnreachableError);
      expect((withBody as { code?: string }).code).to.equal('ERR_DIRECT_INVOKE');
      expect((withBody as Error).message).to.contain('is stopping and refused the call');
    } finally {
      fake.close();
    }
  });

  it('a call the stopping sidecar never opened (above the last id of its GoAway) is unrun when the connection closes', async () => {
    // A fake sidecar that, sent a call, says it is stopping having opened none (last id 0), then closes.
    const fake = net.createServer((socket) =>
      socket.once('data', () => {
        socket.write(Buffer.concat(frameOf(FrameType.GoAway, 0, uint32Payload(0))));
        setTimeout(() => socket.destroy(), 50);
      }),
    );
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    const address = `127.0.0.1:${(fake.address() as net.AddressInfo).port}`;
    try {
      expect(await clients.call(address, 'Echo', {}, undefined, OPTIONS).catch((e: unknown) => e)).to.be.instanceOf(StreamUnreachableError);
      const withBody = await clients.call(address, 'Echo', {}, Readable.from([Buffer.from('read already')]), OPTIONS).catch((e: unknown) => e);
      expect((withBody as { code?: string }).code).to.equal('ERR_DIRECT_INVOKE');
      expect((withBody as Error).message).to.contain('is stopping and refused the call');
    } finally {
      fake.close();
    }
  });
});
