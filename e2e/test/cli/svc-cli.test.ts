import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { SvcdProcess, TestChildProcess, actorStore, eventually, freePort, removeTempFolder, tempFolder } from '@svc/runtime/test-support';
import { harnessPerSuite, type WorkflowHarness } from '../workflow/support/harness.js';

const require = createRequire(import.meta.url);
/** The `svc` bin of the runtime package, as npm links it. */
const SVC = path.join(path.dirname(require.resolve('@svc/runtime/package.json')), 'bin', 'svc.js');
const EXAMPLE_WORKER = path.join(path.dirname(require.resolve('@svc/example-workflow-app/package.json')), 'dist', 'src', 'worker.js');

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `svc <args>` to its end. */
function svc(args: readonly string[], opts: { env?: Record<string, string>; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVC, ...args], { env: { ...process.env, SVC_API_TOKEN: '', ...opts.env }, cwd: opts.cwd ?? process.cwd() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('svc workflow … against a real svcd', function () {
  this.timeout(120_000);
  let h: WorkflowHarness;
  harnessPerSuite({ store: 'sqlite' }, (started) => (h = started));
  const wf = (...args: string[]) => svc(['workflow', ...args, '--http-port', String(h.svcd.ports.http)]);
  const json = async <T>(...args: string[]): Promise<T> => {
    const r = await wf(...args, '-o', 'json');
    expect(r.code, r.stderr).to.equal(0);
    return JSON.parse(r.stdout) as T;
  };
  const status = async (id: string) => (await json<{ runtimeStatus: string }>('get', id)).runtimeStatus;

  it('start, get, list (table and JSON, filters, pages), history', async () => {
    const started = await wf('start', 'echo', '--id', 'cli-echo', '--input', '{"hello":"cli"}');
    expect(started).to.deep.include({ code: 0, stdout: 'cli-echo\n' });
    await eventually('cli-echo completed', async () => (await status('cli-echo')) === 'COMPLETED', 30_000);
    const get = await wf('get', 'cli-echo');
    expect(get.stdout).to.match(/^Instance ID: +cli-echo$/m).and.match(/^Status: +COMPLETED$/m).and.match(/^Output: +\{"hello":"cli"\}$/m);

    for (const id of ['cli-a', 'cli-b', 'cli-c']) expect((await wf('start', 'approval', '--id', id)).code).to.equal(0);
    await eventually('three running', async () => (await json<{ instances: unknown[] }>('list', '--status', 'RUNNING')).instances.length === 3, 30_000);
    const table = await wf('list');
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).to.match(/^INSTANCE ID +WORKFLOW +STATUS +CREATED +LAST UPDATE +PARENT$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[0]).sort()).to.deep.equal(['cli-a', 'cli-b', 'cli-c', 'cli-echo']);
    const paged = await wf('list', '--page-size', '2');
    expect(paged.stdout.trim().split('\n')).to.have.length(3);
    expect(paged.stderr).to.match(/^more: svc workflow list --continuation-token \S+/);
    expect((await json<{ instances: { instanceID: string }[]; continuationToken: null }>('list', '--page-size', '1', '--all')).instances).to.have.length(4);
    expect((await json<{ instances: { instanceID: string }[] }>('list', '--name', 'echo')).instances.map((i) => i.instanceID)).to.deep.equal(['cli-echo']);
    expect((await json<{ instances: { instanceID: string }[] }>('list', '--prefix', 'cli-b')).instances.map((i) => i.instanceID)).to.deep.equal(['cli-b']);

    const history = await wf('history', 'cli-echo');
    expect(history.stdout).to.match(/^# +TIME +EVENT +ID +DETAILS$/m).and.match(/ExecutionStarted .*name=echo/).and.match(/ExecutionCompleted .*status=COMPLETED/);
    const events = await json<{ type: string }[]>('history', 'cli-echo', '--full');
    expect(events.map((e) => e.type)).to.include.members(['ExecutionStarted', 'TimerCreated', 'TimerFired', 'ExecutionCompleted']);
  });

  it('raise, pause, resume, terminate, purge, rerun', async () => {
    expect((await wf('raise', 'cli-a', 'approval', '--data', '"ok"')).stdout).to.equal('cli-a: event approval raised\n');
    await eventually('cli-a completed', async () => (await status('cli-a')) === 'COMPLETED', 30_000);
    expect((await json<{ properties: Record<string, string> }>('get', 'cli-a')).properties['svc.workflow.output']).to.equal('{"decision":"ok"}');

    expect((await wf('pause', 'cli-b')).code).to.equal(0);
    await eventually('cli-b suspended', async () => (await status('cli-b')) === 'SUSPENDED', 30_000);
    expect((await wf('resume', 'cli-b')).code).to.equal(0);
    await eventually('cli-b running', async () => (await status('cli-b')) === 'RUNNING', 30_000);
    expect((await wf('terminate', 'cli-b')).stdout).to.equal('cli-b: terminated\n');
    await eventually('cli-b terminated', async () => (await status('cli-b')) === 'TERMINATED', 30_000);
    expect((await wf('purge', 'cli-b')).stdout).to.equal('cli-b: purged\n');
    expect((await wf('get', 'cli-b')).code).to.equal(1);

    await h.client().scheduleNewOrchestration('failing', undefined, 'cli-failed');
    await eventually('cli-failed failed', async () => (await status('cli-failed')) === 'FAILED', 30_000);
    const scheduled = (await json<{ type: string; eventId: number }[]>('history', 'cli-failed')).find((e) => e.type === 'TaskScheduled')!;
    expect((await wf('rerun', 'cli-failed', String(scheduled.eventId), '--new-id', 'cli-rerun')).stdout).to.equal('cli-rerun\n');
    await eventually('the rerun ran', async () => (await status('cli-rerun')) === 'FAILED', 30_000);
  });

  it('get --follow prints the history as it is written and ends with the instance (table and JSON lines)', async () => {
    for (const [id, output] of [['cli-follow', 'table'], ['cli-follow-json', 'json']] as const) {
      expect((await wf('start', 'approval', '--id', id)).code).to.equal(0);
      await eventually(`${id} running`, async () => (await status(id)) === 'RUNNING', 30_000);
      const follow = new TestChildProcess(
        spawn(process.execPath, [SVC, 'workflow', 'get', id, '--follow', '-o', output, '--http-port', String(h.svcd.ports.http)], { env: { ...process.env, SVC_API_TOKEN: '' } }),
      );
      try {
        await eventually('the history so far printed', () => Promise.resolve(follow.output.includes('ExecutionStarted')), 30_000);
        expect(follow.output).to.not.include('EventRaised');
        expect((await wf('raise', id, 'approval', '--data', '"ok"')).code).to.equal(0);
        const exit = await follow.exited;
        expect(exit.code, follow.output).to.equal(0);
        if (output === 'table') {
          expect(follow.output).to.match(/^Status: +RUNNING$/m).and.match(/EventRaised .*name=approval/).and.match(/ExecutionCompleted .*status=COMPLETED/).and.match(/^Status: +COMPLETED$/m);
        } else {
          const lines = follow.output.trim().split('\n').map((l) => JSON.parse(l) as { type?: string; index?: number; runtimeStatus?: string });
          expect(lines[0]!.runtimeStatus).to.equal('RUNNING');
          expect(lines.at(-1)!.runtimeStatus).to.equal('COMPLETED');
          const events = lines.slice(1, -1);
          expect(events.map((e) => e.type)).to.include('EventRaised').and.include('ExecutionCompleted');
          // Each event once, in order, none skipped.
          expect(events.map((e) => e.index)).to.deep.equal(events.map((_, i) => i));
        }
      } finally {
        await follow.kill();
      }
    }
  });

  it('errors say what to do, with exit code 1 (failed) or 2 (misused)', async () => {
    const missing = await wf('get', 'nope');
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.include('ERR_INSTANCE_ID_NOT_FOUND').and.include('hint: `svc workflow list` shows the instances that exist');
    const running = await wf('purge', 'cli-c');
    expect(running.stderr).to.include('ERR_PURGE_WORKFLOW_NOT_COMPLETED').and.include('terminate it first');
    const badStatus = await wf('list', '--status', 'SLEEPING');
    expect([badStatus.code, badStatus.stderr]).to.satisfy(([c, e]: [number, string]) => c === 1 && e.includes('unknown workflow status'));

    const nobody = await svc(['workflow', 'list', '--http-port', String(await freePort())]);
    expect(nobody.code).to.equal(1);
    expect(nobody.stderr).to.match(/cannot reach svcd at http:\/\/127\.0\.0\.1:\d+: is it running\?/);

    for (const args of [['workflow', 'frobnicate'], ['workflow', 'get'], ['workflow', 'list', '--bogus'], ['workflow', 'list', '-o', 'xml'], ['nonsense'], ['run']]) {
      const r = await svc(args);
      expect(r.code, args.join(' ')).to.equal(2);
      expect(r.stderr, args.join(' ')).to.match(/^svc: .+/);
    }
    expect((await svc(['--help'])).stdout).to.include('svc run --app-id myapp -- node app.js');
  });
});

describe('svc workflow with an API token', function () {
  this.timeout(60_000);
  it('asks for SVC_API_TOKEN when svcd wants one, and uses it', async () => {
    const store = actorStore('sqlite', 'cli-token');
    const svcd = await SvcdProcess.start({ appId: store.appId, resources: store.resources, env: { SVC_API_TOKEN: 'cli-s3cret' } });
    try {
      const port = String(svcd.ports.http);
      const refused = await svc(['workflow', 'list', '--http-port', port]);
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.include('ERR_UNAUTHORIZED').and.include('set SVC_API_TOKEN');
      const ok = await svc(['workflow', 'start', 'order', '--id', 'tok-cli', '--http-port', port], { env: { SVC_API_TOKEN: 'cli-s3cret' } });
      expect(ok).to.deep.include({ code: 0, stdout: 'tok-cli\n' });
    } finally {
      await svcd.dispose();
    }
  });
});

describe('svc init and svc run', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = tempFolder('svc-cli-')));
  afterEach(() => removeTempFolder(dir));

  it('svc init writes the embedded default once and keeps what is there', async () => {
    const first = await svc(['init'], { cwd: dir });
    expect(first.code).to.equal(0);
    const file = path.join(dir, '.svc', 'resources', 'statestore.yaml');
    expect(readFileSync(file, 'utf8')).to.include('type: state.sqlite').and.include('actorStateStore');
    expect(readFileSync(path.join(dir, '.svc', 'resources', 'pubsub.yaml'), 'utf8')).to.include('type: pubsub.sqlite');
    const again = await svc(['init'], { cwd: dir });
    expect(again.stdout).to.include('already has statestore.yaml and pubsub.yaml: kept as they are');
  });

  it('svc run starts svcd, then the example worker; a workflow runs; Ctrl-C stops both cleanly', async () => {
    const [http, grpc] = [await freePort(), await freePort()];
    const run = new TestChildProcess(
      spawn(process.execPath, [SVC, 'run', '--app-id', 'cli-run', '--http-port', String(http), '--grpc-port', String(grpc), '--metrics-port', '0', '--', process.execPath, EXAMPLE_WORKER], { cwd: dir, env: { ...process.env, SVC_API_TOKEN: '' } }),
    );
    try {
      await eventually('svcd ready and the app started', () => Promise.resolve(run.output.includes('svc: starting the app') && run.output.includes('[app]')), 30_000);
      expect(run.output).to.match(/svc: created .*statestore\.yaml/).and.match(/svc: svcd ready in \d+ ms: HTTP http:\/\/127\.0\.0\.1:\d+, gRPC .*, UI http:\/\/127\.0\.0\.1:\d+\/ui\//);
      expect(existsSync(path.join(dir, '.svc', 'data'))).to.equal(true);
      const start = await svc(['workflow', 'start', 'order', '--id', 'run-order', '--input', '{"item":"clips","quantity":2,"customer":"ada"}', '--http-port', String(http)]);
      expect(start.code, start.stderr).to.equal(0);
      await eventually('the order completed', async () => (await svc(['workflow', 'get', 'run-order', '--http-port', String(http)])).stdout.includes('COMPLETED'), 60_000);
      expect(run.output).to.include('[app] [run-order] reserving 2 × clips for ada');

      run.child.kill('SIGINT');
      const exit = await run.exited;
      expect(exit.code, run.output).to.equal(0);
      expect(run.output).to.include('svc: stopping the app').and.include('svc: stopping svcd').and.include('svcd stopped').and.include('svc: stopped');
      expect((await svc(['workflow', 'list', '--http-port', String(http)])).stderr).to.include('cannot reach svcd');
    } finally {
      await run.kill();
    }
  });

  it('svc run ends with the app: its exit code, svcd stopped', async () => {
    const http = await freePort();
    const run = new TestChildProcess(
      spawn(process.execPath, [SVC, 'run', '--app-id', 'cli-exit', '--http-port', String(http), '--grpc-port', String(await freePort()), '--metrics-port', '0', '--', process.execPath, '-e', 'process.exit(3)'], { cwd: dir }),
    );
    const exit = await run.exited;
    expect(exit.code, run.output).to.equal(3);
    expect(run.output).to.include('svc: the app exited with code 3').and.include('svcd stopped');
  });
  it('svc run --app-port starts an app that listens late: svcd waits for it, both run', async () => {
    const [http, appPort] = [await freePort(), await freePort()];
    // An app with no actors and no subscriptions that opens its port only after a second.
    const appCode = `setTimeout(() => require('node:http').createServer((q, r) => r.writeHead(404).end()).listen(${appPort}, '127.0.0.1', () => console.log('app listening')), 1000)`;
    const run = new TestChildProcess(
      spawn(process.execPath, [SVC, 'run', '--app-id', 'cli-late', '--http-port', String(http), '--grpc-port', String(await freePort()), '--metrics-port', '0', '--app-port', String(appPort), '--', process.execPath, '-e', appCode], { cwd: dir }),
    );
    try {
      await eventually('svcd ready', () => Promise.resolve(run.output.includes('svc: svcd ready')), 30_000);
      expect(run.output).to.include('[app] app listening');
      expect(run.output.indexOf('svc: starting the app')).to.be.below(run.output.indexOf('svc: svcd ready'));
      expect((await fetch(`http://127.0.0.1:${http}/v1.0/healthz`)).status).to.equal(204);
    } finally {
      run.child.kill('SIGINT');
      await run.exited;
    }
  });

  it('svc run refuses ports already taken, naming the port, instead of calling another svcd ready', async () => {
    const other = await SvcdProcess.start({ args: ['--metrics-port', '0'] });
    try {
      const res = await svc(['run', '--app-id', 'cli-taken', '--http-port', String(other.ports.http), '--grpc-port', String(await freePort()), '--metrics-port', '0'], { cwd: dir });
      expect(res.code).to.equal(1);
      expect(res.stderr).to.include(`port ${other.ports.http} (--http-port) is already in use`);
      expect(res.stdout).to.not.include('svcd ready').and.not.include('starting svcd');
    } finally {
      await other.dispose();
    }
  });

  it('svc run takes its ports from SVC_HTTP_PORT and SVC_GRPC_PORT when no flag gives them', async () => {
    const [http, grpc] = [await freePort(), await freePort()];
    const run = new TestChildProcess(spawn(process.execPath, [SVC, 'run', '--app-id', 'cli-env'], { cwd: dir, env: { ...process.env, SVC_HTTP_PORT: String(http), SVC_GRPC_PORT: String(grpc), SVC_METRICS_PORT: '0' } }));
    try {
      await eventually('svcd ready', () => Promise.resolve(run.output.includes('svc: svcd ready')), 30_000);
      expect(run.output).to.include(`HTTP http://127.0.0.1:${http}, gRPC 127.0.0.1:${grpc}`);
      expect((await svc(['workflow', 'list'], { env: { SVC_HTTP_PORT: String(http) } })).code).to.equal(0);
      // The default resources have a pub/sub: the docs' first publish works with no broker.
      const published = await fetch(`http://127.0.0.1:${http}/v1.0/publish/pubsub/orders`, { method: 'POST', body: '{"orderId":1}', headers: { 'content-type': 'application/json' } });
      expect(published.status, await published.text()).to.equal(204);
    } finally {
      run.child.kill('SIGINT');
      await run.exited;
    }
  });

  it('svc run whose output pipe closes stops the app and svcd (no orphans)', async () => {
    const http = await freePort();
    const appCode = `console.log('pid ' + process.pid); setInterval(() => console.log('tick'), 50)`;
    const run = new TestChildProcess(
      spawn(process.execPath, [SVC, 'run', '--app-id', 'cli-pipe', '--http-port', String(http), '--grpc-port', String(await freePort()), '--metrics-port', '0', '--', process.execPath, '-e', appCode], { cwd: dir }),
    );
    await eventually('the app runs', () => Promise.resolve(/\[app\] pid \d+/.test(run.output)), 30_000);
    const appPid = Number(/\[app\] pid (\d+)/.exec(run.output)![1]);
    run.child.stdout?.destroy(); // whoever read svc's output is gone: its next line meets a closed pipe
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    try {
      await eventually('svc, the app and svcd ended', () => Promise.resolve(run.child.exitCode !== null && !alive(appPid)), 30_000);
      await eventually('svcd no longer answers', async () => !(await fetch(`http://127.0.0.1:${http}/v1.0/healthz`).then(() => true, () => false)), 15_000);
    } finally {
      if (alive(appPid)) process.kill(appPid, 'SIGKILL');
      await run.kill();
    }
  });
  it('two svc run of one app on one host (a Redis actor store: the internal port opens) both start', async () => {
    const store = actorStore('redis', 'cli-pair');
    const folder = path.join(dir, 'shared-resources');
    mkdirSync(folder);
    for (const [name, yaml] of Object.entries(store.resources)) writeFileSync(path.join(folder, name), yaml);
    const runs: TestChildProcess[] = [];
    try {
      for (const n of [1, 2]) {
        const args = ['run', '--app-id', store.appId, '--http-port', String(await freePort()), '--grpc-port', String(await freePort()), '--metrics-port', '0', '--resources-path', folder, '--data-dir', path.join(dir, `data-${n}`)];
        const run = new TestChildProcess(spawn(process.execPath, [SVC, ...args], { cwd: dir }));
        runs.push(run);
        await eventually(`svc run ${n} ready`, () => Promise.resolve(run.output.includes('svc: svcd ready') || run.child.exitCode !== null), 30_000);
        expect(run.output).to.include('svc: svcd ready');
      }
    } finally {
      for (const run of runs) {
        run.child.kill('SIGINT');
        await run.exited;
      }
      await store.cleanup();
    }
  });
});
