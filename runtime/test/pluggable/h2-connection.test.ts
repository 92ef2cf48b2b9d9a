/**
 * svcd's own HTTP/2 client (h2-connection.ts, hpack.ts) against Node's HTTP/2 server (nghttp2) doing what any
 * server may: Huffman-coded and table-indexed headers, CONTINUATION, padding, small windows, PING, SETTINGS
 * changes, GOAWAY with calls in flight, and bytes that are not HTTP/2 at all. Calls go through the unary transport.
 */
import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import http2 from 'node:http2';
import net from 'node:net';
import path from 'node:path';
import { encodeHeaders } from '../../src/components/pluggable/hpack.js';
import { UnaryTransport, type UnaryMethod } from '../../src/components/pluggable/unary-transport.js';
import { tempSocketsFolder } from '../support/example-component.js';

const echo: UnaryMethod<Buffer, Buffer> = { path: '/test.Echo/Say', requestSerialize: (b) => b, responseDeserialize: (b) => b };

function frame(body: Buffer): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(body.length, 1);
  return Buffer.concat([prefix, body]);
}

/** Reads a request's one message (after its 5-byte prefix). */
async function requestBody(stream: http2.ServerHttp2Stream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts).subarray(5);
}

type Answer = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, body: Buffer) => void;

async function server(answer: Answer, options: http2.ServerOptions = {}): Promise<{ socket: string; server: http2.Http2Server; sessions: http2.ServerHttp2Session[] }> {
  const socket = path.join(tempSocketsFolder(), 'h2.sock');
  const srv = http2.createServer(options);
  const sessions: http2.ServerHttp2Session[] = [];
  srv.on('session', (s) => sessions.push(s));
  srv.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    void requestBody(stream).then((body) => answer(stream, headers, body));
  });
  await new Promise<void>((resolve) => srv.listen(socket, resolve));
  return { socket, server: srv, sessions };
}

function reply(stream: http2.ServerHttp2Stream, body: Buffer, headers: http2.OutgoingHttpHeaders = {}, trailers: http2.OutgoingHttpHeaders = {}): void {
  stream.respond({ ':status': 200, 'content-type': 'application/grpc', ...headers }, { waitForTrailers: true });
  stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0', ...trailers }));
  stream.end(frame(body));
}

describe('svcd HTTP/2 client against a Node HTTP/2 server', function () {
  this.timeout(20_000);
  const closers: (() => void)[] = [];
  afterEach(() => {
    for (const close of closers.splice(0)) close();
  });
  function transport(socket: string, onConnectionLost: () => void = () => undefined): UnaryTransport {
    const t = new UnaryTransport({ socketPath: socket, maxReplyBytes: 64 * 1024 * 1024, maxRequestBytes: 64 * 1024 * 1024, onConnectionLost });
    closers.push(() => t.close());
    return t;
  }
  const call = (t: UnaryTransport, body: Buffer, headers: Record<string, string> = {}) =>
    new Promise<{ err: grpc.ServiceError | null; reply?: Buffer }>((resolve) => t.call(echo, body, headers, Date.now() + 10_000, (err, reply) => resolve({ err, reply })));

  it('decodes Huffman-coded, table-indexed and evicted headers exactly as the server sent them', async () => {
    // Values of every printable character in changing orders, repeated so the server indexes them in its
    // dynamic table, and many and long enough that entries are evicted again: each call's trailers come back whole.
    const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('').trim();
    const valueOf = (n: number, k: number) => `${printable.slice(n % 90)}${printable.slice(0, n % 90)}-${k}-${'z'.repeat(n * 7 % 300)}`.trim();
    const { socket, server: srv } = await server((stream, _headers, body) => {
      const n = Number(body.toString());
      const trailers: Record<string, string> = {};
      for (let k = 0; k < 6; k++) trailers[`x-h${(n + k) % 9}`] = valueOf(n, k);
      reply(stream, body, { 'x-n': String(n) }, trailers);
    });
    closers.push(() => srv.close());
    const t = transport(socket);
    for (let n = 0; n < 60; n++) {
      // The transport reports trailers only with errors; a code-0 answer must merely decode. Errors carry them all.
      const { err, reply: r } = await call(t, Buffer.from(String(n)));
      expect([err, r?.toString()]).to.deep.equal([null, String(n)]);
    }
    const failing = await server((stream, _headers, body) => {
      const n = Number(body.toString());
      const trailers: Record<string, string> = { 'grpc-status': '9', 'grpc-message': `why ${n}` };
      for (let k = 0; k < 6; k++) trailers[`x-h${(n + k) % 9}`] = valueOf(n, k);
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers(trailers));
      stream.end();
    });
    closers.push(() => failing.server.close());
    const f = transport(failing.socket);
    for (let n = 0; n < 60; n++) {
      const { err } = await call(f, Buffer.from(String(n)));
      expect(err?.details).to.equal(`why ${n}`);
      for (let k = 0; k < 6; k++) expect(err?.metadata.get(`x-h${(n + k) % 9}`), `call ${n} header ${k}`).to.deep.equal([valueOf(n, k)]);
    }
  });

  it('sends its own headers as the server reads them', async () => {
    let seen: http2.IncomingHttpHeaders | undefined;
    const { socket, server: srv } = await server((stream, headers, body) => {
      seen = headers;
      reply(stream, body);
    });
    closers.push(() => srv.close());
    await call(transport(socket), Buffer.from('x'), { 'x-component-instance': 'orders' });
    expect(seen).to.include({ ':method': 'POST', ':path': '/test.Echo/Say', ':scheme': 'http', 'content-type': 'application/grpc', te: 'trailers' });
    expect(seen!['x-component-instance']).to.equal('orders');
    expect(seen!['grpc-timeout']).to.match(/^\d+m$/);
  });

  it('moves a 20 MiB request and a 20 MiB reply through small windows, both ways at once for several calls', async () => {
    const { socket, server: srv } = await server((stream, _headers, body) => reply(stream, Buffer.concat([body, body])), { settings: { initialWindowSize: 16_384 } });
    closers.push(() => srv.close());
    const t = transport(socket);
    const bodies = [0x61, 0x62, 0x63].map((c) => Buffer.alloc(10 * 1024 * 1024, c));
    const answers = await Promise.all(bodies.map((b) => call(t, b)));
    for (const [i, a] of answers.entries()) {
      expect(a.err).to.equal(null);
      expect(a.reply!.equals(Buffer.concat([bodies[i]!, bodies[i]!]))).to.equal(true);
    }
  });

  it('reads header blocks split over CONTINUATION frames, and answers PING', async () => {
    const big = 'v'.repeat(40_000); // over two 16 KiB frames of header block
    const { socket, server: srv, sessions } = await server(
      (stream, _headers, body) => {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'x-big': big }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '5', 'grpc-message': 'not here', 'x-big-trailer': big }));
        stream.end(frame(body));
      },
      { maxSendHeaderBlockLength: 1 << 20 },
    );
    closers.push(() => srv.close());
    const t = transport(socket);
    const { err } = await call(t, Buffer.from('x'));
    expect([err?.code, err?.details, err?.metadata.get('x-big-trailer')]).to.deep.equal([grpc.status.NOT_FOUND, 'not here', [big]]);
    const pinged = await new Promise<boolean>((resolve) => sessions[0]!.ping((e) => resolve(e === null)));
    expect(pinged, 'the server got its PING acknowledged').to.equal(true);
  });

  it('reads padded HEADERS and DATA frames (and a HEADERS frame with priority fields)', async () => {
    const socket = path.join(tempSocketsFolder(), 'padded.sock');
    const h2frame = (type: number, flags: number, id: number, payload: Buffer) => {
      const header = Buffer.alloc(9);
      header.writeUIntBE(payload.length, 0, 3);
      header[3] = type;
      header[4] = flags;
      header.writeUInt32BE(id, 5);
      return Buffer.concat([header, payload]);
    };
    const padded = (body: Buffer, padding: number) => Buffer.concat([Buffer.from([padding]), body, Buffer.alloc(padding, 0xee)]);
    const srv = net.createServer((c) => {
      c.on('error', () => undefined);
      c.once('data', () => {
        const headers = encodeHeaders([[':status', '200'], ['content-type', 'application/grpc']]);
        const trailers = encodeHeaders([['grpc-status', '0']]);
        c.write(
          Buffer.concat([
            h2frame(4, 0, 0, Buffer.alloc(0)),
            // HEADERS: PADDED | PRIORITY | END_HEADERS, 5 bytes of priority fields before the block.
            h2frame(1, 0x8 | 0x20 | 0x4, 1, padded(Buffer.concat([Buffer.alloc(5), headers]), 7)),
            h2frame(0, 0x8, 1, padded(frame(Buffer.from('padded reply')), 40)),
            h2frame(1, 0x8 | 0x4 | 0x1, 1, padded(trailers, 3)),
          ]),
        );
      });
    });
    await new Promise<void>((resolve) => srv.listen(socket, resolve));
    closers.push(() => srv.close());
    const { err, reply: r } = await call(transport(socket), Buffer.from('x'));
    expect([err, r?.toString()]).to.deep.equal([null, 'padded reply']);
  });

  it("keeps within the server's SETTINGS_MAX_CONCURRENT_STREAMS from the first calls on, queueing the rest", async () => {
    let inFlight = 0;
    let most = 0;
    const { socket, server: srv } = await server(
      (stream, _headers, body) => {
        most = Math.max(most, ++inFlight);
        setTimeout(() => {
          inFlight--;
          reply(stream, body);
        }, 20);
      },
      { settings: { maxConcurrentStreams: 2 } },
    );
    closers.push(() => srv.close());
    const t = transport(socket);
    // Issued before the connection is even up: nothing may go out before the server's limit is known.
    const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => call(t, Buffer.from(`c${i}`))));
    expect(burst.map((a) => a.err?.details ?? a.reply?.toString())).to.deep.equal(Array.from({ length: 12 }, (_, i) => `c${i}`));
    expect(most).to.equal(2);
  });

  it('fails calls past a GOAWAY as UNAVAILABLE (not processed), finishes the others, and then uses a new connection', async () => {
    const held: (() => void)[] = [];
    let arrived = 0;
    let threeArrived!: () => void;
    const three = new Promise<void>((resolve) => (threeArrived = resolve));
    const { socket, server: srv, sessions } = await server((stream, _headers, body) => {
      if (arrived === 3) return reply(stream, body); // after the GOAWAY, on a new connection
      // Streams past the GOAWAY are gone on the server's side: only the processed one is answered.
      held.push(() => stream.destroyed || reply(stream, body));
      if (++arrived === 3) threeArrived();
    });
    closers.push(() => srv.close());
    let lost = 0;
    const t = transport(socket, () => {
      lost++;
    });
    const calls = [1, 2, 3].map((n) => call(t, Buffer.from(String(n))));
    await three;
    // The server will process only the first stream (id 1); 3 and 5 were never processed.
    sessions[0]!.goaway(http2.constants.NGHTTP2_NO_ERROR, 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const release of held) release();
    const answers = await Promise.all(calls);
    expect(answers.map((a) => a.err?.code ?? a.reply?.toString())).to.deep.equal(['1', grpc.status.UNAVAILABLE, grpc.status.UNAVAILABLE]);
    expect((await call(t, Buffer.from('again'))).reply?.toString()).to.equal('again');
    expect(sessions.length).to.equal(2);
    expect(lost, 'a GOAWAY may be a component going away: initialise again').to.equal(1);
  });

  it('drops a connection that speaks no HTTP/2, failing its calls as UNAVAILABLE, and stays up', async () => {
    const socket = path.join(tempSocketsFolder(), 'garbage.sock');
    const srv = net.createServer((c) => c.end(Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\nnot http/2 at all, this is a long enough line')));
    await new Promise<void>((resolve) => srv.listen(socket, resolve));
    closers.push(() => srv.close());
    const t = transport(socket);
    const answers = await Promise.all([1, 2, 3].map(() => call(t, Buffer.from('x'))));
    expect(answers.map((a) => a.err?.code)).to.deep.equal([grpc.status.UNAVAILABLE, grpc.status.UNAVAILABLE, grpc.status.UNAVAILABLE]);
    expect(answers[0]!.err?.details).to.match(/protocol error|closed/i);
  });

  it('drops a connection whose header block is not valid HPACK', async () => {
    const socket = path.join(tempSocketsFolder(), 'bad-hpack.sock');
    const srv = net.createServer((c) => {
      c.once('data', () => {
        // SETTINGS (empty), then HEADERS on stream 1 with END_HEADERS whose block indexes entry 200 (no such entry).
        c.write(Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]));
        c.write(Buffer.from([0, 0, 2, 1, 0x05, 0, 0, 0, 1, 0xff, 0x49]));
      });
      c.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => srv.listen(socket, resolve));
    closers.push(() => srv.close());
    const { err } = await call(transport(socket), Buffer.from('x'));
    expect(err?.code).to.equal(grpc.status.UNAVAILABLE);
    expect(err?.details).to.include('header compression');
  });
});
