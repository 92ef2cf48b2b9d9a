/**
 * gRPC proxying as Dapr SDK users use it: a plain grpc-js client calls its own svcd (A, no app) with `dapr-app-id`
 * metadata, and reaches the gRPC server of app B through B's svcd, for every call shape, with metadata, status and
 * trailers passed through and the caller's identity written by B's sidecar. Both sidecars share one temporary HOME:
 * its name registry (~/.svc/name-registry.db) is how they find each other, and no other test's.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { decodeRichStatus, STATUS_DETAILS_TRAILER } from '@svc/proto';
import { removeTempFolder, SvcdProcess, tempFolder } from '@svc/runtime/test-support';
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const LAB_PROTO = `
syntax = "proto3";
package proxytest.v1;
service Lab {
  rpc Echo (Note) returns (Note);
  rpc Count (Note) returns (stream Note);
  rpc Sum (stream Number) returns (Number);
  rpc Chat (stream Note) returns (stream Note);
}
message Note { string text = 1; }
message Number { int32 value = 1; }
`;

interface Note {
  text: string;
}
interface NumberMessage {
  value: number;
}

const API_TOKEN = 'proxy-test-token';
const B = 'proxied-b';

/** What the app's error answer carries: the test expects exactly these back at the caller. */
const APP_ERROR = { code: grpc.status.FAILED_PRECONDITION, details: 'the lab is closed (é)', why: 'because', blob: Buffer.from([0, 1, 2, 255]), richDetails: Buffer.from([8, 9, 18, 3, 110, 111, 33]) };

type LabClient = grpc.Client & Record<'Echo' | 'Count' | 'Sum' | 'Chat', (...args: unknown[]) => grpc.ClientReadableStream<Note> & grpc.ClientDuplexStream<unknown, Note> & grpc.ClientWritableStream<unknown>>;

/** The app's gRPC server: records each call's metadata, answers as its method says. */
function labServer(seen: grpc.Metadata[], deadlines: grpc.Deadline[]): grpc.UntypedServiceImplementation {
  return {
    Echo: (call: grpc.ServerUnaryCall<Note, Note>, callback: grpc.sendUnaryData<Note>) => {
      seen.push(call.metadata);
      deadlines.push(call.getDeadline());
      const reply = new grpc.Metadata();
      reply.set('x-reply', 'from-app');
      call.sendMetadata(reply);
      if (call.request.text === 'fail') {
        const trailers = new grpc.Metadata();
        trailers.set('x-why', APP_ERROR.why);
        trailers.set('x-blob-bin', APP_ERROR.blob);
        trailers.set(STATUS_DETAILS_TRAILER, APP_ERROR.richDetails);
        return callback({ code: APP_ERROR.code, details: APP_ERROR.details, metadata: trailers });
      }
      const trailers = new grpc.Metadata();
      trailers.set('x-done', 'yes');
      callback(null, { text: `echo:${call.request.text}` }, trailers);
    },
    Count: (call: grpc.ServerWritableStream<Note, Note>) => {
      seen.push(call.metadata);
      for (let i = 1; i <= Number(call.request.text); i++) call.write({ text: String(i) });
      call.end();
    },
    Sum: (call: grpc.ServerReadableStream<NumberMessage, NumberMessage>, callback: grpc.sendUnaryData<NumberMessage>) => {
      seen.push(call.metadata);
      let sum = 0;
      call.on('data', (n: NumberMessage) => (sum += n.value));
      call.on('end', () => callback(null, { value: sum }));
    },
    Chat: (call: grpc.ServerDuplexStream<Note, Note>) => {
      seen.push(call.metadata);
      call.on('data', (n: Note) => call.write({ text: `re:${n.text}` }));
      call.on('end', () => call.end());
    },
  };
}

function unary(client: LabClient, text: string, metadata: grpc.Metadata): Promise<{ reply: Note; headers: grpc.Metadata; status: grpc.StatusObject }> {
  return new Promise((resolve, reject) => {
    let headers = new grpc.Metadata();
    let reply: Note | undefined;
    const call = client.Echo({ text }, metadata, (err: grpc.ServiceError | null, r: Note) => {
      if (err) reject(err);
      else reply = r;
    });
    call.on('metadata', (m: grpc.Metadata) => (headers = m));
    call.on('status', (status: grpc.StatusObject) => reply && resolve({ reply, headers, status }));
  });
}

function failureOf(promise: Promise<unknown>): Promise<grpc.ServiceError> {
  return promise.then(
    () => expect.fail('the call succeeded'),
    (err: grpc.ServiceError) => err,
  );
}

function reasonOf(err: grpc.ServiceError): string | undefined {
  const bytes = err.metadata.get(STATUS_DETAILS_TRAILER)[0];
  if (bytes === undefined) return undefined;
  const detail = decodeRichStatus(bytes as Buffer).details.find((d) => d.type === 'google.rpc.ErrorInfo');
  return detail?.type === 'google.rpc.ErrorInfo' ? detail.reason : undefined;
}

describe('gRPC proxying: a grpc-js client with dapr-app-id metadata reaches another app\'s gRPC server', function () {
  this.timeout(60_000);
  const seen: grpc.Metadata[] = [];
  const deadlines: grpc.Deadline[] = [];
  let home: string;
  let app: grpc.Server;
  let a: SvcdProcess;
  let b: SvcdProcess;
  let Lab: grpc.ServiceClientConstructor;
  let viaA: LabClient;

  /** Metadata for a call through A: the token and the target, plus `extra`. */
  const md = (extra: Record<string, string | Buffer> = {}, target = B): grpc.Metadata => {
    const m = new grpc.Metadata();
    m.set('dapr-api-token', API_TOKEN);
    m.set('dapr-app-id', target);
    for (const [k, v] of Object.entries(extra)) m.set(k, v);
    return m;
  };

  before(async () => {
    home = tempFolder('grpc-proxy-');
    const protoFile = path.join(home, 'lab.proto');
    writeFileSync(protoFile, LAB_PROTO);
    const loaded = grpc.loadPackageDefinition(protoLoader.loadSync(protoFile)) as unknown as { proxytest: { v1: { Lab: grpc.ServiceClientConstructor } } };
    Lab = loaded.proxytest.v1.Lab;
    app = new grpc.Server();
    app.addService(Lab.service, labServer(seen, deadlines));
    const appPort = await new Promise<number>((resolve, reject) => app.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
    const env = { HOME: home };
    b = await SvcdProcess.start({ appId: B, env, args: ['--app-protocol', 'grpc', '--app-port', String(appPort)] });
    a = await SvcdProcess.start({ appId: 'caller-a', env: { ...env, SVC_API_TOKEN: API_TOKEN } });
    viaA = new Lab(a.grpcAddress, grpc.credentials.createInsecure()) as unknown as LabClient;
  });
  after(async () => {
    viaA?.close();
    await Promise.all([a?.dispose(), b?.dispose()]);
    app?.forceShutdown();
    if (home) removeTempFolder(home);
  });

  it('proxies a unary call, with the app\'s response metadata and trailers', async () => {
    const { reply, headers, status } = await unary(viaA, 'hello', md());
    expect(reply.text).to.equal('echo:hello');
    expect(headers.get('x-reply')).to.deep.equal(['from-app']);
    expect(status.code).to.equal(grpc.status.OK);
    expect(status.metadata.get('x-done')).to.deep.equal(['yes']);
    expect(deadlines.at(-1)).to.equal(Infinity);
  });

  it('gives the app what is left of the caller\'s deadline', async () => {
    const sent = Date.now();
    await new Promise((resolve, reject) => viaA.Echo({ text: 'soon' }, md(), { deadline: sent + 5_000 }, (err: grpc.ServiceError | null) => (err ? reject(err) : resolve(undefined))));
    // A Date or epoch milliseconds, as grpc-js gives it; each hop sends what is left, rounded up to its unit.
    expect(Number(deadlines.at(-1))).to.be.closeTo(sent + 5_000, 1_000);
  });

  it('passes the caller\'s metadata (text and binary) to the app; the token and the target stop at the caller\'s sidecar, and the caller\'s identity is the one its sidecar proved', async () => {
    await unary(viaA, 'who', md({ 'x-custom': 'v1', 'x-raw-bin': Buffer.from([7, 0, 7]), 'dapr-caller-app-id': 'mallory', 'dapr-caller-namespace': 'evil', 'svc-caller-app-id': 'mallory', 'dapr-callee-app-id': 'nobody' }));
    const got = seen.at(-1)!;
    expect(got.get('x-custom')).to.deep.equal(['v1']);
    expect(got.get('x-raw-bin')).to.deep.equal([Buffer.from([7, 0, 7])]);
    expect(got.get('dapr-caller-app-id')).to.deep.equal(['caller-a']);
    expect(got.get('dapr-caller-namespace')).to.deep.equal(['default']);
    expect(got.get('dapr-callee-app-id')).to.deep.equal([B]);
    for (const dropped of ['svc-caller-app-id', 'dapr-app-id', 'svc-app-id', 'dapr-api-token', 'svc-api-token', 'svc-invoke-token']) expect(got.get(dropped), dropped).to.deep.equal([]);
  });

  // Many small messages at once: two run together on the way would decode as one (protobuf merges them).
  it('proxies a server-streaming call, each message whole', async () => {
    const call = viaA.Count({ text: '500' }, md());
    const got: string[] = [];
    for await (const note of call) got.push((note as Note).text);
    expect(got).to.deep.equal(Array.from({ length: 500 }, (_, i) => String(i + 1)));
  });

  it('proxies a client-streaming call, each message whole', async () => {
    const sum = await new Promise<NumberMessage>((resolve, reject) => {
      const call = viaA.Sum(md(), (err: grpc.ServiceError | null, r: NumberMessage) => (err ? reject(err) : resolve(r)));
      for (let value = 1; value <= 500; value++) call.write({ value });
      call.end();
    });
    expect(sum.value).to.equal(125_250);
  });

  it('proxies a bidirectional call message by message (each answer comes before the next request is sent)', async () => {
    const call = viaA.Chat(md());
    const replies = call[Symbol.asyncIterator]() as AsyncIterator<Note>;
    for (const text of ['a', 'b', 'c']) {
      call.write({ text });
      expect((await replies.next()).value).to.deep.equal({ text: `re:${text}` });
    }
    call.end();
    expect((await replies.next()).done).to.equal(true);
  });

  it('returns the app\'s error status, message and trailers exactly', async () => {
    const err = await failureOf(unary(viaA, 'fail', md()));
    expect(err.code).to.equal(APP_ERROR.code);
    expect(err.details).to.equal(APP_ERROR.details);
    expect(err.metadata.get('x-why')).to.deep.equal([APP_ERROR.why]);
    expect(err.metadata.get('x-blob-bin')).to.deep.equal([APP_ERROR.blob]);
    expect(err.metadata.get(STATUS_DETAILS_TRAILER)).to.deep.equal([APP_ERROR.richDetails]);
  });

  it('takes `<app-id>.<namespace>`, the svc-app-id key, and calls to a sidecar\'s own app', async () => {
    expect((await unary(viaA, 'ns', md({}, `${B}.default`))).reply.text).to.equal('echo:ns');
    const svcKey = new grpc.Metadata();
    svcKey.set('svc-api-token', API_TOKEN);
    svcKey.set('svc-app-id', B);
    expect((await unary(viaA, 'svc', svcKey)).reply.text).to.equal('echo:svc');
    const viaB = new Lab(b.grpcAddress, grpc.credentials.createInsecure()) as unknown as LabClient;
    try {
      expect((await unary(viaB, 'self', md())).reply.text).to.equal('echo:self');
      expect(seen.at(-1)!.get('dapr-caller-app-id')).to.deep.equal([B]);
    } finally {
      viaB.close();
    }
  });

  it('serves svcd\'s own methods itself, dapr-app-id or not', async () => {
    const calls = seen.length;
    const bytes = await new Promise<Buffer>((resolve, reject) =>
      viaA.makeUnaryRequest('/dapr.proto.runtime.v1.Dapr/GetMetadata', (b: Buffer) => b, (b: Buffer) => b, Buffer.alloc(0), md(), (err, r) => (err ? reject(err) : resolve(r!))),
    );
    expect(bytes.toString('latin1')).to.include('caller-a');
    expect(seen.length).to.equal(calls);
  });

  it('answers a call naming no app UNIMPLEMENTED, an unknown app NOT_FOUND with the error code, a missing token UNAUTHENTICATED', async () => {
    const calls = seen.length;
    const noTarget = new grpc.Metadata();
    noTarget.set('dapr-api-token', API_TOKEN);
    expect((await failureOf(unary(viaA, 'x', noTarget))).code).to.equal(grpc.status.UNIMPLEMENTED);

    const unknown = await failureOf(unary(viaA, 'x', md({}, 'no-such-app')));
    expect(unknown.code).to.equal(grpc.status.NOT_FOUND);
    expect(reasonOf(unknown)).to.equal('ERR_DIRECT_INVOKE_APP_NOT_FOUND');

    const noToken = new grpc.Metadata();
    noToken.set('dapr-app-id', B);
    expect((await failureOf(unary(viaA, 'x', noToken))).code).to.equal(grpc.status.UNAUTHENTICATED);
    expect(seen.length).to.equal(calls);
  });

  // Last: it stops the app.
  it('answers UNAVAILABLE when the target app is down', async () => {
    app.forceShutdown();
    const err = await failureOf(unary(viaA, 'x', md()));
    expect(err.code).to.equal(grpc.status.UNAVAILABLE);
  });
});
