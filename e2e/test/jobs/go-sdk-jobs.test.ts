/**
 * The Dapr Go SDK, unchanged, on both sides of the jobs API (e2e/go/jobs-app): its client schedules, reads and
 * deletes jobs through svcd's gRPC API (ScheduleJobAlpha1, GetJobAlpha1, DeleteJobAlpha1), and a go-sdk gRPC
 * service is the app svcd delivers each firing to (it serves OnJobEventAlpha1 only: svcd falls back to it). Jobs
 * live on a SQLite actor store.
 */
import { actorStore, freePort, SvcdProcess, TestChildProcess, type ActorStore } from '@svc/runtime/test-support';
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { buildGoProgram, runGoProgram, type ScenarioLine } from '../support/go-program.js';

/** The names the Go app has a job event handler for. */
const HANDLED = ['tick', 'once', 'doomed'] as const;
const STRING_VALUE = 'type.googleapis.com/google.protobuf.StringValue';

/** A google.protobuf.StringValue's bytes: field 1, length-delimited (texts under 128 bytes). */
function stringValue(text: string): Buffer {
  const utf8 = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from([0x0a, utf8.length]), utf8]);
}

/** The go-sdk app (`jobs-app serve`): the firings it printed so far, one JSON line each. */
class GoJobsApp extends TestChildProcess {
  static async start(binary: string, port: number): Promise<GoJobsApp> {
    const app = new GoJobsApp(spawn(binary, ['serve', String(port), ...HANDLED], { stdio: ['ignore', 'pipe', 'pipe'] }));
    const deadline = Date.now() + 10_000;
    while (!app.lines().some((l) => l.step === 'serving')) {
      if (Date.now() > deadline || app.child.exitCode !== null) throw new Error(`the Go app did not start:\n${app.output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return app;
  }

  lines(): ScenarioLine[] {
    return this.output
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as ScenarioLine);
  }

  /** The data (base64, as Go writes []byte) of each firing of `job` received, in order. */
  firings(job: string): (string | null)[] {
    return this.lines()
      .filter((l) => l.step === 'job-event' && l.observed?.name === job)
      .map((l) => l.observed!.data as string | null);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Dapr Go SDK jobs (client and gRPC app) through svcd', function () {
  this.timeout(120_000);
  let binary: string;
  let app: GoJobsApp;
  let store: ActorStore;
  let svcd: SvcdProcess;

  /** One `jobs-app client` step against svcd; its line. */
  async function client(step: 'schedule' | 'get' | 'delete', args: string[]): Promise<ScenarioLine> {
    const run = await runGoProgram(binary, { grpcPort: svcd.ports.grpc, args: ['client', step, ...args], killAfterMs: 30_000 });
    expect(run.lines, `${step} ${args.join(' ')}: ${run.stderr}`).to.have.length(1);
    return run.lines[0]!;
  }

  async function succeeds(step: 'schedule' | 'get' | 'delete', args: string[]): Promise<Record<string, unknown> | null> {
    const line = await client(step, args);
    expect(line.error, `${step} ${args.join(' ')}`).to.equal(undefined);
    return line.observed;
  }

  /** Waits until the app received `count` firings of `job` (or fails, with what it did receive). */
  async function firingsReach(job: string, count: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (app.firings(job).length < count) {
      if (Date.now() > deadline) expect.fail(`${job}: ${app.firings(job).length} firings, not ${count}, within ${timeoutMs} ms\n${svcd.output}`);
      await sleep(50);
    }
  }

  before(async () => {
    binary = await buildGoProgram('jobs-app');
    const appPort = await freePort();
    app = await GoJobsApp.start(binary, appPort);
    store = actorStore('sqlite', 'gojobs');
    svcd = await SvcdProcess.start({ appId: store.appId, resources: store.resources, args: ['--app-port', String(appPort), '--app-protocol', 'grpc'] });
  });
  after(async () => {
    await svcd?.dispose();
    await app?.stop();
    await store?.cleanup();
  });

  it('ScheduleJobAlpha1 "@every 1s" with 3 repeats: GetJobAlpha1 answers it as scheduled, the app gets its data bytes 3 times and not a 4th', async () => {
    const data = stringValue('tick from go: é ✓');
    await succeeds('schedule', ['-name', 'tick', '-schedule', '@every 1s', '-repeats', '3', '-type-url', STRING_VALUE, '-data-base64', data.toString('base64')]);
    expect(await succeeds('get', ['-name', 'tick'])).to.deep.equal({
      name: 'tick',
      schedule: '@every 1s',
      repeats: 3,
      dueTime: '',
      ttl: '',
      data: { typeUrl: STRING_VALUE, value: data.toString('base64') },
    });
    await firingsReach('tick', 3, 10_000);
    // Its repeats used up, the job is gone; a 4th point would have come a second after the 3rd.
    const gone = await client('get', ['-name', 'tick']);
    expect(gone.observed).to.deep.equal({ code: 'NotFound', message: 'job tick not found' });
    await sleep(1_500);
    expect(app.firings('tick')).to.deep.equal([data, data, data].map((d) => d.toString('base64')));
  });

  it('ScheduleJobAlpha1 with a due time alone: a one-shot, fired once with its raw bytes, then gone', async () => {
    const data = Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80]); // not UTF-8: handed on as bytes
    await succeeds('schedule', ['-name', 'once', '-due-time', '1s', '-type-url', 'type.example/raw.bytes', '-data-base64', data.toString('base64')]);
    expect(await succeeds('get', ['-name', 'once'])).to.deep.equal({
      name: 'once',
      schedule: '',
      repeats: 0,
      dueTime: '1s',
      ttl: '',
      data: { typeUrl: 'type.example/raw.bytes', value: data.toString('base64') },
    });
    await firingsReach('once', 1, 10_000);
    await sleep(1_500);
    expect(app.firings('once')).to.deep.equal([data.toString('base64')]);
    expect((await client('get', ['-name', 'once'])).observed).to.deep.equal({ code: 'NotFound', message: 'job once not found' });
  });

  it('DeleteJobAlpha1 stops a job that fires forever; GetJobAlpha1 then answers NotFound', async () => {
    await succeeds('schedule', ['-name', 'doomed', '-schedule', '@every 1s', '-type-url', STRING_VALUE, '-data-base64', stringValue('doomed').toString('base64')]);
    await firingsReach('doomed', 2, 10_000);
    await succeeds('delete', ['-name', 'doomed']);
    await sleep(300); // a firing delivered before the delete returned is still on its way through the app's stdout
    const before = app.firings('doomed').length;
    await sleep(2_500);
    expect(app.firings('doomed'), 'firings after the delete').to.have.length(before);
    expect((await client('get', ['-name', 'doomed'])).observed).to.deep.equal({ code: 'NotFound', message: 'job doomed not found' });
  });

  it('GetJobAlpha1 of a job never scheduled answers NotFound', async () => {
    const line = await client('get', ['-name', 'never-scheduled']);
    expect(line.error).to.match(/^rpc error: code = NotFound/);
    expect(line.observed).to.deep.equal({ code: 'NotFound', message: 'job never-scheduled not found' });
  });
});
