import { expect } from 'chai';
import net from 'node:net';
import { pino } from 'pino';
import { Readable } from 'node:stream';
import { RuntimeError, isRuntimeError } from '../../src/errors/runtime-error.js';
import { InternalServer } from '../../src/internal/internal-server.js';
import { PeerClients } from '../../src/internal/peer-client.js';
import { addPeerService } from '../../src/internal/peer-server.js';
import { StreamClients, StreamUnreachableError } from '../../src/internal/stream-client.js';
import { WINDOW_BYTES } from '../../src/internal/stream-connection.js';
import { FrameSplitter, frameOf, FrameType, STREAM_PREFACE } from '../../src/internal/stream-frames.js';
import type { StreamHandler } from '../../src/internal/stream-server.js';
import { freePort } from '../support/index.js';

const log = pino({ level: 'silent' });
const OPTIONS = { metadata: { 'svc-test': 'yes' }, connectTimeoutMs: 2_000 };

async function readAll(body: Readable): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return chunks;
}

/** A body whose chunks come one by one, each after the last was read. */
function bodyOf(...chunks: string[]): Readable {
  return Readable.from(chunks.map((c) => Buffer.from(c)));
}

/** The frames of a call as a raw caller writes them: the Open frame, its messages, its End. */
function rawCall(id: number, open: unknown, ...messages: string[]): Buffer {
  return Buffer.concat([
    ...frameOf(FrameType.Open, id, Buffer.from(JSON.stringify(open))),
    ...messages.flatMap((m) => frameOf(FrameType.Message, id, Buffer.from(m))),
    ...frameOf(FrameType.End, id, Buffer.alloc(0)),
  ]);
}

/** Reads frames from a raw socket until `until` says enough, or the socket closes. */
function framesFrom(socket: net.Socket, until: (frames: { type: FrameType; id: number; text: string }[]) => boolean): Promise<{ type: FrameType; id: number; text: string }[]> {
  const frames: { type: FrameType; id: number; text: string }[] = [];
  const splitter = new FrameSplitter(1 << 20);
  return new Promise((resolve) => {
    socket.on('data', (d: Buffer) => {
      splitter.push(d, (type, id, payload) => frames.push({ type, id, text: payload.toString() }));
      if (until(frames)) resolve(frames);
    });
    socket.on('close', () => resolve(frames));
  });
}

describe('internal streaming calls (sidecar to sidecar, beside gRPC on one port)', () => {
  let server: InternalServer;
  let address: string;
  let clients: StreamClients;
  let lastSignal: AbortSignal | undefined;

  const handlers: Record<string, StreamHandler> = {
    // Answers with the head and the header it was given, each request message back in order, then a trailer.
    Echo: async (call) => {
      const messages = await readAll(call.body);
      return { head: { got: call.head, header: call.header('svc-test') }, body: Readable.from(messages), trailer: () => Promise.resolve({ count: messages.length }) };
    },
    Refuse: () => Promise.reject(new RuntimeError('ERR_PERMISSION_DENIED', 'not you', { httpStatus: 403 })),
    Crash: () => Promise.reject(new Error('boom')),
    // Answers, then fails after two messages of its body.
    FailMidway: () => {
      const body = new Readable({ objectMode: true, read() {} });
      body.push(Buffer.from('one'));
      body.push(Buffer.from('two'));
      setTimeout(() => body.destroy(new RuntimeError('ERR_DIRECT_INVOKE', 'the app broke off')), 50);
      return Promise.resolve({ head: { status: 200 }, body });
    },
    Hang: (call) => {
      lastSignal = call.signal;
      return new Promise((_resolve, reject) => call.signal.addEventListener('abort', () => reject(new Error('aborted'))));
    },
    // Never reads the request body.
    Ignore: () => Promise.resolve({ head: { ignored: true } }),
    // Reads nothing for a while (as a call being authenticated), then says how many messages were held for it.
    Held: async (call) => {
      await new Promise((r) => setTimeout(r, 300));
      return { head: { held: call.body.readableLength } };
    },
  };

  before(async () => {
    server = new InternalServer('127.0.0.1', 0);
    server.addStreamHandlers(handlers, log);
    addPeerService(server, { token: () => 't', handlers: { Ping: (body) => Promise.resolve(body) }, log });
    await server.start();
    address = server.address;
    clients = new StreamClients();
  });

  after(async () => {
    clients.close();
    await server.stop(1000);
  });

  it('carries the head, each message whole and in order, and the trailer; the answer body ends after the trailer', async () => {
    const big = 'x'.repeat(300_000);
    const huge = 'h'.repeat(5 * 1024 * 1024);
    const reply = await clients.call(address, 'Echo', { a: 1, text: 'ü' }, bodyOf('first', '', big, huge, 'last'), OPTIONS);
    expect(reply.head).to.deep.equal({ got: { a: 1, text: 'ü' }, header: 'yes' });
    expect((await readAll(reply.body)).map((c) => c.toString())).to.deep.equal(['first', '', big, huge, 'last']);
    expect(await reply.trailer).to.deep.equal({ count: 5 });
  });

  it('serves gRPC calls between replicas on the same port', async () => {
    const peers = new PeerClients({ token: () => 't', log });
    try {
      expect(await peers.call(address, 'Ping', { n: 7 })).to.deep.equal({ n: 7 });
      // and streaming calls again after it, on connections of their own
      expect((await clients.call(address, 'Echo', {}, undefined, OPTIONS)).head).to.deep.equal({ got: {}, header: 'yes' });
    } finally {
      peers.close();
    }
  });

  it("rebuilds the handler's RuntimeError whole; any other failure is ERR_DIRECT_INVOKE naming it", async () => {
    const refused = await clients.call(address, 'Refuse', {}, undefined, OPTIONS).catch((e: unknown) => e);
    expect(isRuntimeError(refused, 'ERR_PERMISSION_DENIED')).to.equal(true);
    expect((refused as RuntimeError).httpStatus).to.equal(403);
    expect((refused as Error).message).to.equal('not you');
    const crashed = await clients.call(address, 'Crash', {}, undefined, OPTIONS).catch((e: unknown) => e);
    expect(isRuntimeError(crashed, 'ERR_DIRECT_INVOKE')).to.equal(true);
    expect((crashed as Error).message).to.contain('boom');
    const unknown = await clients.call(address, 'NoSuchMethod', {}, undefined, OPTIONS).catch((e: unknown) => e);
    expect(isRuntimeError(unknown, 'ERR_DIRECT_INVOKE')).to.equal(true);
    expect((unknown as Error).message).to.contain('does not serve NoSuchMethod');
  });

  it('fails the answer body with the error of a handler that breaks off after its head, never ending it as whole', async () => {
    const reply = await clients.call(address, 'FailMidway', {}, undefined, OPTIONS);
    const got: string[] = [];
    const err = await (async () => {
      for await (const c of reply.body) got.push((c as Buffer).toString());
    })().catch((e: unknown) => e);
    expect(got).to.deep.equal(['one', 'two']);
    expect(isRuntimeError(err, 'ERR_DIRECT_INVOKE')).to.equal(true);
    expect((err as Error).message).to.contain('the app broke off');
    expect(await reply.trailer.catch((e: unknown) => e)).to.equal(err);
  });

  it('cancels the handler when the caller aborts, with the caller seeing its own reason', async () => {
    const abort = new AbortController();
    const pending = clients.call(address, 'Hang', {}, undefined, { ...OPTIONS, signal: abort.signal }).catch((e: unknown) => e);
    while (!lastSignal) await new Promise((r) => setTimeout(r, 10));
    abort.abort(new Error('caller gave up'));
    expect(((await pending) as Error).message).to.equal('caller gave up');
    while (!lastSignal.aborted) await new Promise((r) => setTimeout(r, 10));
    const before = lastSignal;
    const gone = await clients.call(address, 'Hang', {}, undefined, { ...OPTIONS, signal: AbortSignal.abort(new Error('already gone')) }).catch((e: unknown) => e);
    expect((gone as Error).message).to.equal('already gone');
    await new Promise((r) => setTimeout(r, 50));
    expect(lastSignal).to.equal(before);
  });

  it('says a sidecar that cannot be reached is unreachable, with the body not read at all', async () => {
    const dead = `127.0.0.1:${await freePort()}`;
    let reads = 0;
    const body = new Readable({
      read() {
        reads += 1;
        this.push(null);
      },
    });
    const err = await clients.call(dead, 'Echo', {}, body, OPTIONS).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(StreamUnreachableError);
    expect((err as Error).message).to.contain(dead);
    expect(reads).to.equal(0);
  });

  it('fails the answer body when the connection is cut mid-answer', async () => {
    // A fake sidecar: answers the first call with a head frame and one message, then drops the connection.
    const fake = net.createServer((socket) =>
      socket.once('data', () => {
        socket.write(Buffer.concat([...frameOf(FrameType.Head, 1, Buffer.from('{"status":200}')), ...frameOf(FrameType.Message, 1, Buffer.from('partial'))]));
        setTimeout(() => socket.destroy(), 50);
      }),
    );
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
    try {
      const reply = await clients.call(`127.0.0.1:${(fake.address() as net.AddressInfo).port}`, 'Echo', {}, undefined, OPTIONS);
      expect(reply.head).to.deep.equal({ status: 200 });
      const got: string[] = [];
      const err = await (async () => {
        for await (const c of reply.body) got.push((c as Buffer).toString());
      })().catch((e: unknown) => e);
      expect(got).to.deep.equal(['partial']);
      expect(isRuntimeError(err, 'ERR_DIRECT_INVOKE')).to.equal(true);
    } finally {
      fake.close();
    }
  });

  it('reads frames however the bytes arrive: one at a time', async () => {
    const socket = net.connect({ port: Number(address.split(':')[1]), host: '127.0.0.1', noDelay: true });
    await new Promise((r) => socket.once('connect', r));
    const bytes = Buffer.concat([STREAM_PREFACE, rawCall(7, { method: 'Echo', metadata: { 'svc-test': 'one' }, head: { bytes: 1 } }, 'abc', 'de')]);
    const answer = framesFrom(socket, (frames) => frames.some((f) => f.type === FrameType.End));
    for (const byte of bytes) {
      socket.write(Buffer.from([byte]));
      await new Promise((r) => setImmediate(r));
    }
    const frames = (await answer).filter((f) => f.type !== FrameType.Window);
    socket.destroy();
    expect(frames).to.deep.equal([
      { type: FrameType.Head, id: 7, text: '{"got":{"bytes":1},"header":"one"}' },
      { type: FrameType.Message, id: 7, text: 'abc' },
      { type: FrameType.Message, id: 7, text: 'de' },
      { type: FrameType.Trailer, id: 7, text: '{"count":2}' },
      { type: FrameType.End, id: 7, text: '' },
    ]);
  });

  it('closes a connection that sends a frame over the size limit, saying why, and goes on serving the others', async () => {
    const socket = net.connect(Number(address.split(':')[1]), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    const huge = Buffer.alloc(9);
    huge[0] = FrameType.Open;
    huge.writeUInt32BE(1, 1);
    huge.writeUInt32BE(0xffffffff, 5);
    const answer = framesFrom(socket, () => false);
    socket.write(Buffer.concat([STREAM_PREFACE, huge]));
    const frames = await answer;
    expect(frames.map((f) => [f.type, f.id])).to.deep.equal([[FrameType.Error, 0]]);
    expect(frames[0]!.text).to.contain('ERR_DIRECT_INVOKE').and.contain('over the limit');
    socket.destroy();
    expect((await clients.call(address, 'Echo', {}, undefined, OPTIONS)).head).to.deep.equal({ got: {}, header: 'yes' });
  });

  it('answers a malformed Open with an Error frame for that call and serves the next; a call id used again closes the connection', async () => {
    const socket = net.connect(Number(address.split(':')[1]), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    const answer = framesFrom(socket, () => false);
    socket.write(Buffer.concat([STREAM_PREFACE, ...frameOf(FrameType.Open, 1, Buffer.from('{not json')), ...frameOf(FrameType.End, 1, Buffer.alloc(0))]));
    socket.write(rawCall(2, { method: 'Echo', metadata: { 'svc-test': 'two' }, head: {} }));
    await new Promise((r) => setTimeout(r, 200));
    socket.write(rawCall(2, { method: 'Echo', metadata: {}, head: {} }));
    const frames = (await answer).filter((f) => f.type !== FrameType.Window);
    expect(frames[0]).to.include({ type: FrameType.Error, id: 1 });
    expect(frames[0]!.text).to.contain('ERR_DIRECT_INVOKE');
    expect(frames.filter((f) => f.id === 2).map((f) => f.type)).to.deep.equal([FrameType.Head, FrameType.Trailer, FrameType.End]);
    const last = frames[frames.length - 1]!;
    expect([last.type, last.id]).to.deep.equal([FrameType.Error, 0]);
    expect(last.text).to.contain('opened out of order');
  });

  it('closes a connection that opens with neither preface', async () => {
    const socket = net.connect(Number(address.split(':')[1]), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write('POST /svc.internal.v1.Stream/Echo HTTP/1.1\r\n\r\n');
    expect(await framesFrom(socket, () => false)).to.deep.equal([]);
  });

  it("holds at most its window of a call's body for a handler that has not read it yet", async () => {
    const chunks = Array.from({ length: 40 }, () => 'y'.repeat(100_000));
    const reply = await clients.call(address, 'Held', {}, bodyOf(...chunks), OPTIONS);
    // The sender stops once it has sent past the window: at most the window and the message that crossed it.
    expect((reply.head as { held: number }).held * 100_000).to.be.at.most(WINDOW_BYTES + 100_000);
  });

  it("lets a handler leave the request body unread: the answer comes, and the rest of the body is taken and dropped", async () => {
    // 8 MiB: more than the sockets' buffers hold, so the sender ends only if the other side reads on.
    const body = bodyOf(...Array.from({ length: 64 }, () => 'z'.repeat(128 * 1024)));
    const ended = new Promise<boolean>((resolve) => {
      body.once('end', () => resolve(true));
      setTimeout(() => resolve(false), 5_000);
    });
    const reply = await clients.call(address, 'Ignore', {}, body, OPTIONS);
    expect(reply.head).to.deep.equal({ ignored: true });
    expect(await readAll(reply.body)).to.deep.equal([]);
    expect(await ended).to.equal(true);
    expect((await clients.call(address, 'Echo', {}, bodyOf('again'), OPTIONS)).head).to.deep.equal({ got: {}, header: 'yes' });
  });
});
