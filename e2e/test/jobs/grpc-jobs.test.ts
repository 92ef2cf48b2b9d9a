/**
 * The jobs API over gRPC as a raw @grpc/grpc-js client of dapr.proto.runtime.v1.Dapr sees it, with the Dapr SDK's
 * own .proto files (e2e/test/support/dapr-sdk-proto.ts): ListJobs, DeleteJobsByPrefix, overwrite, failure policies
 * against an app whose OnJobEvent fails, an app serving only AppCallbackAlpha (OnJobEventAlpha1), and malformed
 * requests answered INVALID_ARGUMENT with the catalogue's message and code while svcd runs on. The apps are gRPC
 * servers built from the same files; jobs live on a SQLite actor store.
 */
import * as grpc from '@grpc/grpc-js';
import { decodeRichStatus, STATUS_DETAILS_TRAILER } from '@svc/proto';
import { actorStore, SvcdProcess, type ActorStore } from '@svc/runtime/test-support';
import { expect } from 'chai';
import { appCallbackAlphaService, appCallbackServiceWithJobs, call, daprSdkClient, type Unary } from '../support/dapr-sdk-proto.js';

/** google.protobuf.Any as protobufjs's built-in definition names its fields (snake_case, whatever keepCase says). */
interface Any {
  type_url: string;
  value: Buffer;
}

/** A job as proto-loader hands it over (only the fields set). */
interface JobMessage {
  name: string;
  schedule?: string;
  repeats?: number;
  dueTime?: string;
  ttl?: string;
  data?: Any;
  failurePolicy?: { drop?: object; constant?: { interval?: { seconds: string; nanos: number }; maxRetries?: number } };
}

interface JobEvent {
  name: string;
  data?: Any;
  method: string;
  at: number;
}

/** Names of jobs the app answers with an error: their firings fail. */
const FAILING = /^fail-/;

/** A gRPC app that records each job event; served as AppCallback (OnJobEvent) or as AppCallbackAlpha only. */
class JobEventApp {
  readonly events: JobEvent[] = [];
  readonly #server = new grpc.Server();
  port = 0;

  constructor(serves: 'OnJobEvent' | 'OnJobEventAlpha1') {
    const onJobEvent = (call: grpc.ServerUnaryCall<Omit<JobEvent, 'at'>, object>, callback: grpc.sendUnaryData<object>) => {
      this.events.push({ ...call.request, at: Date.now() });
      if (FAILING.test(call.request.name)) callback({ code: grpc.status.INTERNAL, details: `the app cannot take ${call.request.name}` });
      else callback(null, {});
    };
    if (serves === 'OnJobEvent') this.#server.addService(appCallbackServiceWithJobs(), { OnJobEvent: onJobEvent });
    else this.#server.addService(appCallbackAlphaService(), { OnJobEventAlpha1: onJobEvent });
  }

  async start(): Promise<void> {
    this.port = await new Promise<number>((resolve, reject) =>
      this.#server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))),
    );
  }

  of(job: string): JobEvent[] {
    return this.events.filter((e) => e.name === job);
  }

  stop(): void {
    this.#server.forceShutdown();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const anyOf = (text: string): Any => ({ type_url: 'type.example/text', value: Buffer.from(text) });
/** A job far enough ahead that it does not fire during the test. */
const waiting = (name: string, text = name): JobMessage => ({ name, dueTime: '1h', data: anyOf(text) });

/** Waits until `probe` holds, or fails with `what`. */
async function until(what: () => string, probe: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) expect.fail(`not within ${timeoutMs} ms: ${what()}`);
    await sleep(50);
  }
}

/** The gRPC error a call fails with: its status code, message and ErrorInfo reason (the catalogue's code). */
async function failure(promise: Promise<unknown>): Promise<{ code: grpc.status; message: string; reason: string | undefined }> {
  const err = await promise.then(
    (res) => expect.fail(`succeeded with ${JSON.stringify(res)}`),
    (e: grpc.ServiceError) => e,
  );
  const bytes = err.metadata.get(STATUS_DETAILS_TRAILER)[0];
  const info = bytes === undefined ? undefined : decodeRichStatus(bytes as Buffer).details.find((d) => d.type === 'google.rpc.ErrorInfo');
  return { code: err.code, message: err.details, reason: info?.type === 'google.rpc.ErrorInfo' ? info.reason : undefined };
}

describe('jobs over gRPC: a raw client of dapr.proto.runtime.v1.Dapr (Dapr SDK protos) against svcd', function () {
  this.timeout(120_000);
  const stableApp = new JobEventApp('OnJobEvent');
  const alphaApp = new JobEventApp('OnJobEventAlpha1');
  const stores: ActorStore[] = [];
  let svcd: SvcdProcess;
  let alphaSvcd: SvcdProcess;
  let client: grpc.Client & Record<string, Unary>;
  let alphaClient: grpc.Client & Record<string, Unary>;

  const schedule = (job: JobMessage, overwrite = false, method = 'ScheduleJobAlpha1') => call(client, method, { job, overwrite });
  const listed = async (method: 'ListJobs' | 'ListJobsAlpha1') => (await call<{ jobs?: JobMessage[] }>(client, method, {})).jobs ?? [];
  const names = async () => (await listed('ListJobsAlpha1')).map((j) => j.name);

  async function startSvcd(app: JobEventApp): Promise<SvcdProcess> {
    await app.start();
    const store = actorStore('sqlite', 'grpcjobs');
    stores.push(store);
    return SvcdProcess.start({ appId: store.appId, resources: store.resources, args: ['--app-port', String(app.port), '--app-protocol', 'grpc'] });
  }

  before(async () => {
    [svcd, alphaSvcd] = await Promise.all([startSvcd(stableApp), startSvcd(alphaApp)]);
    client = daprSdkClient(svcd.grpcAddress);
    alphaClient = daprSdkClient(alphaSvcd.grpcAddress);
  });
  afterEach(async () => {
    await call(client, 'DeleteJobsByPrefixAlpha1', {}); // whatever a failed test left behind
  });
  after(async () => {
    client?.close();
    alphaClient?.close();
    await Promise.all([svcd?.dispose(), alphaSvcd?.dispose()]);
    stableApp.stop();
    alphaApp.stop();
    await Promise.all(stores.map((s) => s.cleanup()));
  });

  it('ListJobs and ListJobsAlpha1 answer every job of the app in name order, as scheduled, data bytes and all', async () => {
    const jobs: JobMessage[] = [
      { name: 'list-b', schedule: '@every 1h', repeats: 5, data: { type_url: 'type.example/bytes', value: Buffer.from([0, 0xff, 0x80]) } },
      { name: 'list-a', schedule: '0 30 * * * *', ttl: '2h', failurePolicy: { drop: {} } },
      { name: 'list-c', dueTime: '1h', data: anyOf('c: é'), failurePolicy: { constant: { interval: { seconds: '2', nanos: 500_000_000 }, maxRetries: 4 } } },
    ];
    for (const job of jobs) await schedule(job);
    const sorted = [...jobs].sort((a, b) => a.name.localeCompare(b.name));
    expect(await listed('ListJobsAlpha1')).to.deep.equal(sorted);
    expect(await listed('ListJobs')).to.deep.equal(sorted);
  });

  it('DeleteJobsByPrefix deletes only the jobs whose name starts with the prefix (the prefix itself included); they never fire', async () => {
    const kept = ['batch', 'batch-b-1', 'batcha-1'];
    const doomed = ['batch-a', 'batch-a-1', 'batch-a-2', 'batch-a~z'];
    // All due together, a few seconds ahead: listed before any fires; when the kept ones fired, the others would have.
    for (const name of [...kept, ...doomed]) await schedule({ name, dueTime: '3s', data: anyOf(name) });
    await call(client, 'DeleteJobsByPrefixAlpha1', { namePrefix: 'batch-a' });
    expect(await names()).to.deep.equal(kept);
    for (const name of doomed) {
      expect(await failure(call(client, 'GetJobAlpha1', { name })), name).to.deep.equal({ code: grpc.status.NOT_FOUND, message: `job ${name} not found`, reason: 'DAPR_SCHEDULER_GET_JOB' });
    }
    await until(() => `the kept jobs fired: ${JSON.stringify(stableApp.events.map((e) => e.name))}`, () => kept.every((name) => stableApp.of(name).length === 1));
    await sleep(500);
    for (const name of kept) expect(stableApp.of(name).map((e) => e.data), name).to.deep.equal([anyOf(name)]);
    for (const name of doomed) expect(stableApp.of(name), name).to.deep.equal([]);
  });

  it('DeleteJobsByPrefix with an empty prefix deletes every job of the app', async () => {
    for (const name of ['all-1', 'all-2', 'zzz']) await schedule(waiting(name));
    await schedule(waiting('all-3'), false, 'ScheduleJob');
    expect(await names()).to.deep.equal(['all-1', 'all-2', 'all-3', 'zzz']);
    await call(client, 'DeleteJobsByPrefix', { namePrefix: '' });
    expect(await listed('ListJobs')).to.deep.equal([]);
  });

  it('scheduling an existing name is refused ALREADY_EXISTS without overwrite and replaces the job with it', async () => {
    await schedule(waiting('ow', 'first'));
    expect(await failure(schedule({ name: 'ow', schedule: '@every 1h', data: anyOf('second') }))).to.deep.equal({
      code: grpc.status.ALREADY_EXISTS,
      message: 'job ow already exists: schedule it with overwrite to replace it',
      reason: 'DAPR_SCHEDULER_JOB_EXISTS',
    });
    expect(await call(client, 'GetJobAlpha1', { name: 'ow' })).to.deep.equal({ job: waiting('ow', 'first') });
    await schedule({ name: 'ow', schedule: '@every 1h', data: anyOf('second') }, true, 'ScheduleJob');
    expect(await call(client, 'GetJob', { name: 'ow' })).to.deep.equal({ job: { name: 'ow', schedule: '@every 1h', data: anyOf('second') } });
  });

  it('a firing the app fails: tried once with the drop policy, 1 + 2 retries 200 ms apart with constant{200ms, maxRetries 2}; then the one-shot is over', async () => {
    await schedule({ name: 'fail-drop', dueTime: '0s', data: anyOf('drop'), failurePolicy: { drop: {} } });
    await schedule({ name: 'fail-constant', dueTime: '0s', data: anyOf('constant'), failurePolicy: { constant: { interval: { seconds: '0', nanos: 200_000_000 }, maxRetries: 2 } } });
    await until(() => `fail-constant tried ${stableApp.of('fail-constant').length} times`, () => stableApp.of('fail-constant').length >= 3);
    await sleep(1_000); // five more intervals: a 4th try (or a 2nd of the dropped one) would have come
    expect(stableApp.of('fail-drop').map((e) => e.data)).to.deep.equal([anyOf('drop')]);
    const tries = stableApp.of('fail-constant');
    expect(tries.map((e) => e.data)).to.deep.equal([anyOf('constant'), anyOf('constant'), anyOf('constant')]);
    // Retried after its interval, not at once (a lower bound only: the machine may be slow).
    for (let i = 1; i < tries.length; i++) expect(tries[i]!.at - tries[i - 1]!.at, `try ${i + 1}`).to.be.at.least(150);
    for (const name of ['fail-drop', 'fail-constant']) expect((await failure(call(client, 'GetJobAlpha1', { name }))).code, name).to.equal(grpc.status.NOT_FOUND);
  });

  it('an app serving only AppCallbackAlpha receives its jobs at OnJobEventAlpha1', async () => {
    const data = { type_url: 'type.googleapis.com/google.protobuf.StringValue', value: Buffer.from([0x0a, 0x05, ...Buffer.from('alpha')]) };
    await call(alphaClient, 'ScheduleJobAlpha1', { job: { name: 'alpha-job', schedule: '@every 1s', repeats: 2, data } });
    await until(() => `alpha-job fired ${alphaApp.of('alpha-job').length} times`, () => alphaApp.of('alpha-job').length === 2);
    expect(alphaApp.of('alpha-job').map(({ name, data, method }) => ({ name, data, method }))).to.deep.equal([
      { name: 'alpha-job', data, method: 'job/alpha-job' },
      { name: 'alpha-job', data, method: 'job/alpha-job' },
    ]);
  });

  describe('malformed requests: INVALID_ARGUMENT with the catalogue message and code, svcd unharmed', () => {
    const cases: [string, string, unknown, string, string][] = [
      ['no job', 'ScheduleJobAlpha1', {}, 'DAPR_SCHEDULER_EMPTY', 'the request has no job'],
      ['an empty name', 'ScheduleJobAlpha1', { job: { name: '', schedule: '@every 1s' } }, 'DAPR_SCHEDULER_JOB_NAME_EMPTY', 'the job name is empty'],
      ['an empty name', 'GetJob', { name: '' }, 'DAPR_SCHEDULER_JOB_NAME_EMPTY', 'the job name is empty'],
      ['an empty name', 'DeleteJobAlpha1', { name: '' }, 'DAPR_SCHEDULER_JOB_NAME_EMPTY', 'the job name is empty'],
      ['neither a schedule nor a due time', 'ScheduleJob', { job: { name: 'never', data: anyOf('x') } }, 'DAPR_SCHEDULER_SCHEDULE_EMPTY', 'job never has neither a schedule nor a due time'],
      [
        'a schedule that is no schedule',
        'ScheduleJobAlpha1',
        { job: { name: 'bad', schedule: 'now and then' } },
        'DAPR_SCHEDULER_SCHEDULE_JOB',
        "job bad: schedule 'now and then': a cron expression has 5 or 6 fields (seconds first), or use @every <duration> / @hourly / @daily …",
      ],
      ['an @every too short', 'ScheduleJobAlpha1', { job: { name: 'busy', schedule: '@every 1ms' } }, 'DAPR_SCHEDULER_SCHEDULE_JOB', "job busy: schedule '@every 1ms': @every needs at least 100ms"],
      [
        'a negative retry interval',
        'ScheduleJobAlpha1',
        { job: { name: 'neg', dueTime: '1s', failurePolicy: { constant: { interval: { seconds: '-1', nanos: 0 }, maxRetries: 1 } } } },
        'DAPR_SCHEDULER_SCHEDULE_JOB',
        "job neg: the failure policy's interval must not be negative",
      ],
      [
        'a due time that is no time',
        'ScheduleJobAlpha1',
        { job: { name: 'when', dueTime: 'tomorrow-ish' } },
        'DAPR_SCHEDULER_SCHEDULE_JOB',
        "job when: invalid dueTime 'tomorrow-ish': expected a duration (5s, 1h30m, PT5S) or an RFC 3339 time",
      ],
      ['a TTL over before the first firing', 'ScheduleJobAlpha1', { job: { name: 'brief', dueTime: '10s', ttl: '1s' } }, 'DAPR_SCHEDULER_SCHEDULE_JOB', 'job brief: its ttl ends before its first firing'],
      ['a name too long', 'ScheduleJobAlpha1', { job: { name: 'n'.repeat(257), dueTime: '1s' } }, 'ERR_MALFORMED_REQUEST', 'the job name is longer than 256 characters'],
      ['a name with control characters', 'GetJobAlpha1', { name: 'tab\there' }, 'ERR_MALFORMED_REQUEST', 'the job name holds control characters'],
    ];
    for (const [what, method, req, reason, message] of cases) {
      it(`${method} with ${what}`, async () => {
        const answer = await failure(call(client, method, req));
        expect(answer).to.deep.equal({ code: grpc.status.INVALID_ARGUMENT, reason, message });
      });
    }

    it('leaves svcd running and answering, with no job created by any of them', async () => {
      expect(svcd.child.exitCode).to.equal(null);
      expect((await svcd.request('GET', '/v1.0/healthz')).status).to.equal(204);
      expect(await listed('ListJobs')).to.deep.equal([]);
    });
  });
});
