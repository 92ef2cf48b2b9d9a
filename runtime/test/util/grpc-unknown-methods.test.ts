/**
 * The fallback for unknown methods wraps a private lookup of @grpc/grpc-js (util/grpc-unknown-methods.ts): these
 * fail when an upgrade changes it, before gRPC proxying silently answers UNIMPLEMENTED.
 */
import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import { serveUnknownMethods } from '../../src/util/grpc-unknown-methods.js';

const asIs = (b: Buffer) => b;
const KNOWN: grpc.ServiceDefinition = {
  Known: { path: '/test.Known/Known', requestStream: false, responseStream: false, requestSerialize: asIs, requestDeserialize: asIs, responseSerialize: asIs, responseDeserialize: asIs },
};

describe('serveUnknownMethods (grpc-js server fallback)', () => {
  let server: grpc.Server;
  let client: grpc.Client;
  const seen: { path: string; metadata: string | undefined; messages: string[] }[] = [];

  before(async () => {
    server = new grpc.Server();
    server.addService(KNOWN, { Known: (_call: unknown, callback: grpc.sendUnaryData<Buffer>) => callback(null, Buffer.from('served')) });
    serveUnknownMethods(server, (call) => {
      const messages: string[] = [];
      call.on('data', (m: Buffer) => {
        messages.push(m.toString());
        call.write(Buffer.concat([Buffer.from('echo:'), m]));
      });
      call.on('end', () => {
        seen.push({ path: call.getPath(), metadata: call.metadata.get('x-test')[0]?.toString(), messages });
        const trailers = new grpc.Metadata();
        trailers.set('x-end', 'yes');
        call.end(trailers);
      });
    });
    const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
    client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  });
  after(() => {
    client.close();
    server.forceShutdown();
  });

  it('leaves registered methods to their handlers', async () => {
    const answer = await new Promise<Buffer>((resolve, reject) => client.makeUnaryRequest('/test.Known/Known', asIs, asIs, Buffer.from('x'), (err, v) => (err ? reject(err) : resolve(v!))));
    expect(answer.toString()).to.equal('served');
    expect(seen).to.deep.equal([]);
  });

  it('hands a unary call to an unknown method to the fallback, raw bytes both ways', async () => {
    const metadata = new grpc.Metadata();
    metadata.set('x-test', 'unary');
    const answer = await new Promise<Buffer>((resolve, reject) => client.makeUnaryRequest('/other.Svc/Unary', asIs, asIs, Buffer.from([0, 1, 2]), metadata, (err, v) => (err ? reject(err) : resolve(v!))));
    expect([...answer]).to.deep.equal([...Buffer.from('echo:'), 0, 1, 2]);
    expect(seen.at(-1)).to.deep.equal({ path: '/other.Svc/Unary', metadata: 'unary', messages: ['\u0000\u0001\u0002'] });
  });

  it('hands a bidirectional stream to an unknown method of a known service to the fallback, with its trailers', async () => {
    const call = client.makeBidiStreamRequest('/test.Known/Other', asIs, asIs);
    const got: string[] = [];
    call.on('data', (m: Buffer) => got.push(m.toString()));
    const status = new Promise<grpc.StatusObject>((resolve) => call.on('status', resolve));
    call.write(Buffer.from('a'));
    call.write(Buffer.from('b'));
    call.end();
    const { code, metadata } = await status;
    expect(code).to.equal(grpc.status.OK);
    expect(metadata.get('x-end')).to.deep.equal(['yes']);
    expect(got).to.deep.equal(['echo:a', 'echo:b']);
    expect(seen.at(-1)?.path).to.equal('/test.Known/Other');
  });
});
