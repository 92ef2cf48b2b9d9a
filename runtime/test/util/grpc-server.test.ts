/**
 * GrpcApiServer listens with `node:net` and makes its grpc-js server later (util/grpc-server.ts): on `prepare()`,
 * which svcd calls once ready, or at the first connection. Either way a client is served the same.
 */
import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import net from 'node:net';
import { GrpcApiServer } from '../../src/util/grpc-server.js';

const asIs = (b: Buffer) => b;
const ECHO: grpc.ServiceDefinition = {
  Echo: { path: '/test.Echo/Echo', requestStream: false, responseStream: false, requestSerialize: asIs, requestDeserialize: asIs, responseSerialize: asIs, responseDeserialize: asIs },
};
const echo = { Echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => callback(null, Buffer.concat([Buffer.from('echo:'), call.request])) };

function call(client: grpc.Client, text: string): Promise<string> {
  return new Promise((resolve, reject) => client.makeUnaryRequest('/test.Echo/Echo', asIs, asIs, Buffer.from(text), (err, v) => (err ? reject(err) : resolve(v!.toString()))));
}

describe('GrpcApiServer (the gRPC server made after the port opens)', () => {
  const servers: GrpcApiServer[] = [];
  const clients: grpc.Client[] = [];
  async function started(prepare: boolean): Promise<{ server: GrpcApiServer; client: grpc.Client; port: number }> {
    const server = new GrpcApiServer('127.0.0.1', 0);
    server.addService(ECHO, echo);
    const port = await server.start();
    if (prepare) server.prepare();
    const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    servers.push(server);
    clients.push(client);
    return { server, client, port };
  }
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await Promise.all(servers.splice(0).map((s) => s.stop(1_000)));
  });

  it('serves a client that connects before the server is made, on that first connection', async () => {
    const { client } = await started(false);
    expect(await call(client, 'first')).to.equal('echo:first');
    expect(await call(client, 'second')).to.equal('echo:second');
  });

  it('serves a client once prepared, and refuses services added after the server is made', async () => {
    const { server, client } = await started(true);
    expect(await call(client, 'x')).to.equal('echo:x');
    expect(() => server.addService(ECHO, echo)).to.throw('before the server is made');
  });

  it('stops, and frees its port, whether or not a connection ever came', async () => {
    for (const connect of [false, true]) {
      const { server, client, port } = await started(false);
      if (connect) expect(await call(client, 'y')).to.equal('echo:y');
      await server.stop(1_000);
      const probe = net.createServer();
      await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(port, '127.0.0.1', resolve));
      await new Promise((resolve) => probe.close(resolve));
    }
  });

  it('fails to start on a port in use with EADDRINUSE (the start names the flag and the address)', async () => {
    const { port } = await started(false);
    const second = new GrpcApiServer('127.0.0.1', port);
    const err = await second.start().then(() => undefined, (e: NodeJS.ErrnoException) => e);
    expect(err?.code).to.equal('EADDRINUSE');
  });
});
