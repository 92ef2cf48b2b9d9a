import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import { pino } from 'pino';
import { RuntimeError, isRuntimeError } from '../../src/errors/runtime-error.js';
import { decodePeerBody, encodePeerBody } from '../../src/internal/peer-codec.js';
import { PeerClients, PeerUnreachableError } from '../../src/internal/peer-client.js';
import { InternalServer } from '../../src/internal/internal-server.js';
import { addPeerService, type PeerHandler } from '../../src/internal/peer-server.js';
import { freePort } from '../support/index.js';

const log = pino({ level: 'silent' });
const TOKEN = 'secret-token';

describe('internal peer transport (replica to replica)', () => {
  let server: InternalServer;
  let address: string;
  let clients: PeerClients;
  const calls: string[] = [];
  let lastSignal: AbortSignal | undefined;

  const handlers: Record<string, PeerHandler> = {
    Echo: (body) => {
      calls.push('Echo');
      return Promise.resolve(body);
    },
    Nothing: () => Promise.resolve(undefined),
    Refuse: () => Promise.reject(new RuntimeError('ERR_ACTOR_NOT_OWNER', 'not here', { httpStatus: 503 })),
    Crash: () => Promise.reject(new Error('boom')),
    Hang: (_body, signal) => {
      lastSignal = signal;
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    },
  };

  before(async () => {
    server = new InternalServer('127.0.0.1', 0);
    addPeerService(server, { token: () => TOKEN, handlers, log });
    await server.start();
    address = server.address;
    clients = new PeerClients({ token: () => TOKEN, log });
  });

  after(async () => {
    clients.close();
    await server.stop(1000);
  });

  it('round-trips nested values with Buffers, and undefined', async () => {
    const body = { a: 1, nested: { data: Buffer.from([0, 1, 2, 255]), list: [Buffer.from('x'), 'y', null] }, text: 'ü' };
    const out = await clients.call<typeof body>(address, 'Echo', body);
    expect(out.nested.data).to.deep.equal(Buffer.from([0, 1, 2, 255]));
    expect(out.nested.list[0]).to.deep.equal(Buffer.from('x'));
    expect(out).to.deep.equal(body);
    expect(await clients.call(address, 'Nothing', undefined)).to.equal(undefined);
    expect(decodePeerBody(encodePeerBody({ $b: 'not alone', other: 1 }))).to.deep.equal({ $b: 'not alone', other: 1 });
  });

  it('carries a 10 MiB payload', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024, 7);
    expect((await clients.call<Buffer>(address, 'Echo', big)).equals(big)).to.equal(true);
  });

  it("rebuilds the owner's RuntimeError whole: code, message and statuses", async () => {
    const err = await clients.call(address, 'Refuse', {}).catch((e: unknown) => e);
    expect(isRuntimeError(err, 'ERR_ACTOR_NOT_OWNER')).to.equal(true);
    expect((err as RuntimeError).message).to.equal('not here');
    expect((err as RuntimeError).httpStatus).to.equal(503);
    expect((err as RuntimeError).grpcStatus).to.equal(grpc.status.UNAVAILABLE);
    expect(err).to.not.be.instanceOf(PeerUnreachableError);
  });

  it('turns any other failure into ERR_ACTOR_PEER_CALL naming it', async () => {
    const err = await clients.call(address, 'Crash', {}).catch((e: unknown) => e);
    expect(isRuntimeError(err, 'ERR_ACTOR_PEER_CALL')).to.equal(true);
    expect((err as Error).message).to.contain('boom');
    const unknown = await clients.call(address, 'NoSuchMethod', {}).catch((e: unknown) => e);
    expect(isRuntimeError(unknown, 'ERR_ACTOR_PEER_CALL')).to.equal(true);
  });

  it('refuses a caller without the token, or with another, before the handler runs', async () => {
    calls.length = 0;
    for (const token of [undefined, 'wrong-token', 'secret-tokeN']) {
      const intruder = new PeerClients({ token: () => token, log });
      const err = await intruder.call(address, 'Echo', { x: 1 }).catch((e: unknown) => e);
      intruder.close();
      expect((err as Error).message).to.contain('svc-internal-token');
    }
    expect(calls).to.deep.equal([]);
  });

  it('cancels the handler when the caller aborts', async () => {
    const abort = new AbortController();
    const pending = clients.call(address, 'Hang', {}, { signal: abort.signal }).catch((e: unknown) => e);
    while (!lastSignal) await new Promise((r) => setTimeout(r, 10));
    abort.abort(new Error('caller gave up'));
    expect(((await pending) as Error).message).to.equal('caller gave up');
    while (!lastSignal.aborted) await new Promise((r) => setTimeout(r, 10));
  });

  it('says a replica that cannot be reached is unreachable (nothing ran there), quickly', async () => {
    const dead = `127.0.0.1:${await freePort()}`;
    const err = await clients.call(dead, 'Echo', {}).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(PeerUnreachableError);
    expect((err as Error).message).to.contain(dead);
  });
});
