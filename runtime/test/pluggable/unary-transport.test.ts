/**
 * The unary transport against real servers on Unix sockets: a grpc-js server for what components normally answer,
 * and raw HTTP/2 servers for what a broken or hostile one might: each failure must come back as the gRPC error
 * grpc-js's client would give (the code is what svcd acts on), never hang, never throw.
 */
import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import http2 from 'node:http2';
import path from 'node:path';
import { UnaryTransport, type UnaryMethod } from '../../src/components/pluggable/unary-transport.js';
import { tempSocketsFolder } from '../support/example-component.js';

const echo: UnaryMethod<string, string> = {
  path: '/test.Echo/Say',
  requestSerialize: (s) => Buffer.from(s),
  responseDeserialize: (b) => b.toString(),
};
const soon = () => Date.now() + 5000;

function call(transport: UnaryTransport, request: string, opts: { deadline?: number; headers?: Record<string, string>; method?: UnaryMethod<string, string> } = {}) {
  return new Promise<{ err: grpc.ServiceError | null; reply?: string }>((resolve) =>
    transport.call(opts.method ?? echo, request, opts.headers ?? {}, opts.deadline ?? soon(), (err, reply) => resolve({ err, reply })),
  );
}

/** A grpc-js server of /test.Echo/Say on a socket in a fresh folder. */
async function grpcServer(say: grpc.handleUnaryCall<Buffer, Buffer>): Promise<{ socket: string; server: grpc.Server }> {
  const socket = path.join(tempSocketsFolder(), 'echo.sock');
  const server = new grpc.Server();
  const identity = (b: Buffer) => b;
  server.addService({ Say: { path: echo.path, requestStream: false, responseStream: false, requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity } }, { Say: say });
  await new Promise<void>((resolve, reject) => server.bindAsync(`unix://${socket}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
  return { socket, server };
}

/** A raw HTTP/2 server that answers every stream with `answer`. */
async function rawServer(answer: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void): Promise<{ socket: string; server: http2.Http2Server }> {
  const socket = path.join(tempSocketsFolder(), 'raw.sock');
  const server = http2.createServer();
  server.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    stream.resume();
    stream.once('end', () => answer(stream, headers));
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return { socket, server };
}

/** One gRPC message with its length prefix (`flag` 1: marked compressed). */
function frame(body: Buffer, flag = 0): Buffer {
  const prefix = Buffer.alloc(5);
  prefix[0] = flag;
  prefix.writeUInt32BE(body.length, 1);
  return Buffer.concat([prefix, body]);
}

describe('pluggable unary transport', function () {
  this.timeout(20_000);
  const closers: (() => void)[] = [];
  afterEach(() => {
    for (const close of closers.splice(0)) close();
  });
  function transport(socket: string, opts: { maxReplyBytes?: number; maxRequestBytes?: number; onConnectionLost?: () => void; streamsPerConnection?: number } = {}): UnaryTransport {
    const t = new UnaryTransport({
      socketPath: socket,
      maxReplyBytes: opts.maxReplyBytes ?? 1024 * 1024,
      maxRequestBytes: opts.maxRequestBytes ?? 1024 * 1024,
      onConnectionLost: opts.onConnectionLost ?? (() => undefined),
      ...(opts.streamsPerConnection !== undefined ? { streamsPerConnection: opts.streamsPerConnection } : {}),
    });
    closers.push(() => t.close());
    return t;
  }

  it('makes calls to a grpc-js server, many at once, with its headers and a grpc-timeout', async () => {
    const seen: { instance: unknown; deadline: grpc.Deadline }[] = [];
    const { socket, server } = await grpcServer((c, cb) => {
      seen.push({ instance: c.metadata.get('x-component-instance')[0], deadline: c.getDeadline() });
      cb(null, Buffer.from(`hello ${c.request.toString()}`));
    });
    closers.push(() => server.forceShutdown());
    const t = transport(socket);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => call(t, `n${i}`, { headers: { 'x-component-instance': 'orders' } })));
    expect(answers.map((a) => a.reply)).to.deep.equal(Array.from({ length: 50 }, (_, i) => `hello n${i}`));
    expect(answers.every((a) => a.err === null)).to.equal(true);
    // The deadline travels as grpc-timeout: the server sees one about 5 s away, not none (Infinity).
    expect(seen.every((s) => s.instance === 'orders' && Number(s.deadline) > Date.now() && Number(s.deadline) <= Date.now() + 5000)).to.equal(true);
  });

  it("gives the server's error with its code, percent-decoded message and binary metadata", async () => {
    const { socket, server } = await grpcServer((_c, cb) => {
      const metadata = new grpc.Metadata();
      metadata.set('grpc-status-details-bin', Buffer.from([1, 2, 250]));
      metadata.set('x-why', 'because');
      cb({ code: grpc.status.FAILED_PRECONDITION, details: 'etag 100% wrong, naïvely', metadata });
    });
    closers.push(() => server.forceShutdown());
    const { err } = await call(transport(socket), 'x');
    expect([err?.code, err?.details, err?.message]).to.deep.equal([grpc.status.FAILED_PRECONDITION, 'etag 100% wrong, naïvely', '9 FAILED_PRECONDITION: etag 100% wrong, naïvely']);
    expect(err?.metadata.get('grpc-status-details-bin')[0]).to.deep.equal(Buffer.from([1, 2, 250]));
    expect(err?.metadata.get('x-why')).to.deep.equal(['because']);
    expect(err?.metadata.get('grpc-status')).to.deep.equal([]);
  });

  it('refuses a reply over the cap as it arrives, and keeps the connection for the next call', async () => {
    const { socket, server } = await grpcServer((c, cb) => cb(null, c.request.toString() === 'big' ? Buffer.alloc(8 * 1024 * 1024, 0x61) : Buffer.from('small')));
    closers.push(() => server.forceShutdown());
    const t = transport(socket, { maxReplyBytes: 64 * 1024 });
    const { err } = await call(t, 'big');
    expect([err?.code, err?.details]).to.deep.equal([grpc.status.RESOURCE_EXHAUSTED, 'Received message larger than max (8388608 vs. 65536)']);
    expect((await call(t, 'again')).reply).to.equal('small');
  });

  it('refuses a request over the cap without sending it', async () => {
    let calls = 0;
    const { socket, server } = await grpcServer((_c, cb) => cb(null, Buffer.from(String(++calls))));
    closers.push(() => server.forceShutdown());
    const { err } = await call(transport(socket, { maxRequestBytes: 10 }), 'x'.repeat(11));
    expect([err?.code, err?.details, calls]).to.deep.equal([grpc.status.RESOURCE_EXHAUSTED, 'Sent message larger than max (11 vs. 10)', 0]);
  });

  it('ends a call at its deadline with DEADLINE_EXCEEDED, cancelling it at the server', async () => {
    let cancelled!: () => void;
    const serverSawCancel = new Promise<void>((resolve) => (cancelled = resolve));
    const { socket, server } = await grpcServer((c) => c.on('cancelled', cancelled));
    closers.push(() => server.forceShutdown());
    const { err } = await call(transport(socket), 'x', { deadline: Date.now() + 200 });
    expect([err?.code, err?.details]).to.deep.equal([grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded']);
    await serverSawCancel;
    expect((await call(transport(socket), 'y', { deadline: Date.now() - 1 })).err?.code).to.equal(grpc.status.DEADLINE_EXCEEDED);
  });

  it('fails fast with UNAVAILABLE when nothing listens, and reaches a server that comes up on the socket later', async () => {
    const socket = path.join(tempSocketsFolder(), 'later.sock');
    const t = transport(socket);
    const { err } = await call(t, 'x');
    expect(err?.code).to.equal(grpc.status.UNAVAILABLE);
    expect(err?.details).to.include('ENOENT');
    const server = new grpc.Server();
    const identity = (b: Buffer) => b;
    server.addService({ Say: { path: echo.path, requestStream: false, responseStream: false, requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity } }, { Say: (_c: unknown, cb: grpc.sendUnaryData<Buffer>) => cb(null, Buffer.from('up')) });
    await new Promise<void>((resolve, reject) => server.bindAsync(`unix://${socket}`, grpc.ServerCredentials.createInsecure(), (e) => (e ? reject(e) : resolve())));
    closers.push(() => server.forceShutdown());
    expect((await call(t, 'x')).reply).to.equal('up');
  });

  it('reports UNAVAILABLE for calls in flight when the server goes away, and tells its owner the connection was lost', async () => {
    let lost = 0;
    let arrived!: () => void;
    const inFlight = new Promise<void>((resolve) => (arrived = resolve));
    let told!: () => void;
    const connectionLost = new Promise<void>((resolve) => (told = resolve));
    const { socket, server } = await grpcServer(() => arrived());
    const t = transport(socket, { onConnectionLost: () => (lost++, told()) });
    const pending = call(t, 'x');
    await inFlight;
    server.forceShutdown();
    const { err } = await pending;
    expect(err?.code).to.equal(grpc.status.UNAVAILABLE);
    await connectionLost;
    expect(lost).to.equal(1);
    expect((await call(t, 'again')).err?.code).to.equal(grpc.status.UNAVAILABLE);
  });

  it('moves to a new connection when one has carried its share of calls, losing none and reporting no loss', async () => {
    const { socket, server } = await rawServer((s) => okWith(s, frame(Buffer.from('ok'))));
    closers.push(() => server.close());
    let connections = 0;
    server.on('session', () => connections++);
    let lost = 0;
    const t = transport(socket, { streamsPerConnection: 3, onConnectionLost: () => lost++ });
    const sequential: (string | undefined)[] = [];
    for (let i = 0; i < 7; i++) sequential.push((await call(t, 'x')).reply);
    const together = await Promise.all(Array.from({ length: 9 }, () => call(t, 'x')));
    expect(sequential).to.deep.equal(Array.from({ length: 7 }, () => 'ok'));
    expect(together.map((a) => a.reply)).to.deep.equal(Array.from({ length: 9 }, () => 'ok'));
    expect(connections).to.be.at.least(6);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lost).to.equal(0);
  });

  describe('answers grpc-js would refuse, from a raw HTTP/2 server', () => {
    const cases: [string, (s: http2.ServerHttp2Stream) => void, grpc.status, string][] = [
      ['an HTTP 404 without a gRPC status', (s) => s.respond({ ':status': 404 }, { endStream: true }), grpc.status.UNIMPLEMENTED, 'Received HTTP status code 404'],
      ['an HTTP 503 without a gRPC status', (s) => s.respond({ ':status': 503 }, { endStream: true }), grpc.status.UNAVAILABLE, 'Received HTTP status code 503'],
      ['OK with no message', (s) => s.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '0' }, { endStream: true }), grpc.status.UNIMPLEMENTED, 'No message received'],
      ['two messages', (s) => okWith(s, Buffer.concat([frame(Buffer.from('a')), frame(Buffer.from('b'))])), grpc.status.UNIMPLEMENTED, 'Too many responses received'],
      ['a compressed message nobody negotiated', (s) => okWith(s, frame(Buffer.from('a'), 1)), grpc.status.INTERNAL, 'Received a compressed message, but no compression was negotiated'],
      ['a message cut short', (s) => okWith(s, frame(Buffer.from('abcdef')).subarray(0, 7)), grpc.status.INTERNAL, 'Received a truncated message'],
      ['a stream ended without any status', (s) => (s.respond({ ':status': 200, 'content-type': 'application/grpc' }), s.end(frame(Buffer.from('a')))), grpc.status.INTERNAL, 'Received RST_STREAM with code 0 (Call ended without gRPC status)'],
      ['a refused stream', (s) => s.close(http2.constants.NGHTTP2_REFUSED_STREAM), grpc.status.UNAVAILABLE, 'Stream refused by server'],
      ['a status that is not a number', (s) => s.respond({ ':status': 200, 'grpc-status': 'bad', 'grpc-message': 'odd' }, { endStream: true }), grpc.status.UNKNOWN, 'odd'],
      ['a message that is not percent-encoded right', (s) => s.respond({ ':status': 200, 'grpc-status': '13', 'grpc-message': '100%' }, { endStream: true }), grpc.status.INTERNAL, '100%'],
    ];
    for (const [what, answer, code, details] of cases) {
      it(`${what} → ${grpc.status[code]}`, async () => {
        const { socket, server } = await rawServer(answer);
        closers.push(() => server.close());
        const t = transport(socket);
        const { err, reply } = await call(t, 'x');
        expect([err?.code, err?.details, reply]).to.deep.equal([code, details, undefined]);
      });
    }

    it('a reply the method cannot read → INTERNAL', async () => {
      const { socket, server } = await rawServer((s) => okWith(s, frame(Buffer.from('a'))));
      closers.push(() => server.close());
      const picky = { ...echo, responseDeserialize: () => { throw new Error('not a Say reply'); } };
      const { err } = await call(transport(socket), 'x', { method: picky });
      expect([err?.code, err?.details]).to.deep.equal([grpc.status.INTERNAL, 'Response message parsing error: not a Say reply']);
    });
  });

  it('a request the method cannot write → INTERNAL, nothing sent', async () => {
    const { socket, server } = await rawServer(() => expect.fail('nothing should arrive'));
    closers.push(() => server.close());
    const broken = { ...echo, requestSerialize: () => { throw new Error('no such field'); } };
    const { err } = await call(transport(socket), 'x', { method: broken });
    expect([err?.code, err?.details]).to.deep.equal([grpc.status.INTERNAL, 'Request message serialization failure: no such field']);
  });
});

function okWith(stream: http2.ServerHttp2Stream, body: Buffer): void {
  stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
  stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
  stream.end(body);
}
