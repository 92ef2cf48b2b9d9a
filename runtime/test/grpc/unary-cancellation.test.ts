/**
 * The cancellation signal `unary` gives a method body, on a real grpc-js server and client: a call the client
 * cancels aborts it (a waiting body stops), and a call that was answered never does — grpc-js reports
 * 'cancelled' after every answered call too, and aborting then ran every listener and dependent signal of each
 * answered wait for nothing.
 */
import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import { unary } from '../../src/api/grpc/unary.js';
import { eventually } from '../support/eventually.js';

const identity = (b: Buffer) => b;
const WAIT = { path: '/test.Waits/Wait', requestStream: false, responseStream: false, requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity };

describe('unary gRPC methods: the cancellation signal', () => {
  let server: grpc.Server;
  let client: grpc.Client;
  /** The signal each call's body asked for, by the request's text. */
  const signals = new Map<string, AbortSignal>();
  /** Releases the body of the call with this request text. */
  const release = new Map<string, () => void>();

  before(async () => {
    server = new grpc.Server();
    const wait = unary<Buffer, Buffer>(
      'Wait',
      async (req, cancelled) => {
        const signal = cancelled();
        signals.set(req.toString(), signal);
        await new Promise<void>((resolve, reject) => {
          release.set(req.toString(), resolve);
          signal.addEventListener('abort', () => reject(new Error('the call was cancelled')), { once: true });
        });
        return Buffer.from('done');
      },
      { apiToken: undefined },
    );
    server.addService({ Wait: WAIT }, { Wait: wait });
    const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
    client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  });

  after(() => {
    client.close();
    server.forceShutdown();
  });

  /** Starts a call; `answer` resolves with what the client got. */
  const call = (text: string) => {
    let c!: grpc.ClientUnaryCall;
    const answer = new Promise<{ err: grpc.ServiceError | null; reply?: Buffer }>((resolve) => {
      c = client.makeUnaryRequest(WAIT.path, identity, identity, Buffer.from(text), (err, reply) => resolve({ err, reply }));
    });
    return { c, answer };
  };

  it('aborts the signal of a call the client cancels while its body waits', async () => {
    const { c, answer } = call('cancelled');
    await eventually('the body asked for the signal', () => Promise.resolve(signals.has('cancelled')), 5000);
    c.cancel();
    expect((await answer).err?.code).to.equal(grpc.status.CANCELLED);
    await eventually('the signal aborted', () => Promise.resolve(signals.get('cancelled')!.aborted), 5000);
  });

  it('never aborts the signal of a call it answered', async () => {
    const { answer } = call('answered');
    await eventually('the body waits', () => Promise.resolve(release.has('answered')), 5000);
    release.get('answered')!();
    const { err, reply } = await answer;
    expect(err).to.equal(null);
    expect(reply?.toString()).to.equal('done');
    // grpc-js reports the end of the call on a later tick: give it a few.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(signals.get('answered')!.aborted).to.equal(false);
  });
});
