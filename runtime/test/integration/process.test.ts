import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { actorStore, freePort, SvcdProcess, SVCD_MAIN } from '../support/index.js';

/** Any method on loopback, also those fetch will not send. */
function rawRequest(port: number, method: string, urlPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('svcd process', function () {
  this.timeout(30_000);

  it('lists every flag in --help and exits 0', () => {
    const res = spawnSync(process.execPath, [SVCD_MAIN, '--help'], { encoding: 'utf8' });
    expect(res.status).to.equal(0);
    for (const flag of ['--app-id', '--http-port', '--grpc-port', '--resources-path', '--components-sockets-folder', '--log-level', '--log-as-json', '--max-request-size', '--metrics-port', '--data-dir', 'SVC_API_TOKEN']) {
      expect(res.stdout).to.include(flag);
    }
  });

  it('is installed as the svcd command of the workspace (npx svcd)', () => {
    const repoRoot = path.resolve(path.dirname(SVCD_MAIN), '../..'); // runtime/bin/svcd.js → the repository
    const res = spawnSync(path.join(repoRoot, 'node_modules/.bin/svcd'), ['--version'], { encoding: 'utf8' });
    expect(res.status, res.stderr).to.equal(0);
    expect(res.stdout.trim()).to.match(/^\d+\.\d+\.\d+$/);
  });

  it('exits 2 with a clear message on a bad flag', () => {
    const res = spawnSync(process.execPath, [SVCD_MAIN, '--http-port', 'eighty'], { encoding: 'utf8' });
    expect(res.status).to.equal(2);
    expect(res.stderr).to.match(/invalid --http-port \/ SVC_HTTP_PORT: 'eighty' is not a port number/);
  });

  describe('when a port it listens on is taken', () => {
    /** Holds a loopback port the way another program would. */
    async function takenPort(): Promise<{ port: number; release(): Promise<void> }> {
      const server = net.createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return { port: (server.address() as net.AddressInfo).port, release: () => new Promise<void>((resolve) => server.close(() => resolve())) };
    }

    async function expectPortInUse(flag: string, start: (port: number) => Promise<SvcdProcess>): Promise<void> {
      const taken = await takenPort();
      try {
        const svcd = await start(taken.port);
        const exit = await svcd.exited;
        expect(exit.code, svcd.output).to.equal(1);
        expect(svcd.errorOutput).to.include(`${flag} ${taken.port}: address 127.0.0.1:${taken.port} is already in use`);
        await svcd.dispose();
      } finally {
        await taken.release();
      }
    }

    for (const [flag, which] of [['--http-port', 'http'], ['--grpc-port', 'grpc'], ['--metrics-port', 'metrics']] as const) {
      it(`exits 1 naming ${flag} and the address`, async () => {
        await expectPortInUse(flag, async (port) => {
          const ports = { http: await freePort(), grpc: await freePort(), metrics: await freePort(), [which]: port };
          return SvcdProcess.start({ ports, waitReady: false });
        });
      });
    }

    it('exits 1 naming --internal-grpc-port and the address (multi-host actor store)', async () => {
      const store = actorStore('redis');
      try {
        await expectPortInUse('--internal-grpc-port', (port) =>
          SvcdProcess.start({ appId: store.appId, resources: store.resources, args: ['--internal-grpc-port', String(port)], waitReady: false }),
        );
      } finally {
        await store.cleanup();
      }
    });
  });

  it('opened on all addresses, keeps its metrics server (no API token) on loopback and says so', async () => {
    const outside = Object.values(os.networkInterfaces()).flat().find((i) => i?.family === 'IPv4' && !i.internal)?.address;
    const svcd = await SvcdProcess.start({ appId: 'proc-metrics', args: ['--listen-address', '0.0.0.0'] });
    try {
      const started = JSON.parse(svcd.output.split('\n').find((l) => l.includes('svcd started'))!) as Record<string, unknown>;
      expect(started).to.include({ metricsAddress: '127.0.0.1', metricsPort: svcd.ports.metrics });
      expect((await fetch(`http://127.0.0.1:${svcd.ports.metrics}/metrics`)).status).to.equal(200);
      if (outside === undefined) throw new Error('this machine has no non-loopback IPv4 address to check from');
      expect((await fetch(`http://${outside}:${svcd.ports.http}/v1.0/healthz`)).status, 'the API is open as asked').to.equal(204);
      const refused = await fetch(`http://${outside}:${svcd.ports.metrics}/metrics`).then(
        () => 'answered',
        (err: Error) => String((err.cause as { code?: string } | undefined)?.code),
      );
      expect(refused).to.equal('ECONNREFUSED');
    } finally {
      await svcd.dispose();
    }
  });

  it('starts, logs its ports and version, answers health and metadata, and stops gracefully on SIGTERM', async () => {
    const svcd = await SvcdProcess.start({ appId: 'proc-app' });
    const started = svcd.output.split('\n').find((l) => l.includes('svcd started'));
    expect(started, svcd.output).to.be.a('string');
    const line = JSON.parse(started!) as Record<string, unknown>;
    expect(line).to.include({ appId: 'proc-app', httpPort: svcd.ports.http, grpcPort: svcd.ports.grpc });
    expect(line.version).to.match(/^\d+\.\d+\.\d+/);

    expect((await svcd.request('GET', '/v1.0/healthz')).status).to.equal(204);
    expect((await svcd.request('GET', '/v1.0/healthz/outbound')).status).to.equal(204);
    const meta = await svcd.request('GET', '/v1.0/metadata');
    expect(meta.status).to.equal(200);
    expect(await meta.json()).to.include({ id: 'proc-app' });

    await svcd.request('GET', '/v1.0/nothing-here');
    const metrics = await fetch(`http://127.0.0.1:${svcd.ports.metrics}/metrics`);
    expect(metrics.status).to.equal(200);
    const text = await metrics.text();
    expect(text).to.match(/app_id="proc-app"/);
    // HTTP API requests by route pattern and status: the calls above.
    expect(text).to.match(/svc_http_server_requests_total\{[^}]*method="GET",route="\/v1\.0\/metadata",status="200"[^}]*\} 1/);
    expect(text).to.match(/svc_http_server_requests_total\{[^}]*method="GET",route="unmatched",status="404"[^}]*\} 1/);
    expect(text).to.match(/svc_http_server_request_duration_seconds_count\{[^}]*method="GET",route="\/v1\.0\/healthz"/);
    // The process's own series.
    expect(text).to.match(/svc_process_cpu_seconds_total\{app_id="proc-app"\} \d/);
    expect(text).to.match(/svc_nodejs_eventloop_lag_p99_seconds\{app_id="proc-app"\} \d/);

    await svcd.stop();
    const exit = await svcd.exited;
    expect(exit.code).to.equal(0);
    expect(svcd.output).to.include('svcd stopped');
  });

  it('stays asleep while idle: no sampler wakes it a hundred times a second', async () => {
    // The main thread's voluntary context switches count its wake-ups from epoll. An idle svcd wakes for its
    // heartbeats and its event-loop sampler (10 a second); prom-client's default sampler alone woke it 100 times.
    const wakeUps = (pid: number) => Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8'))![1]);
    for (const args of [[], ['--metrics-port', '0']]) {
      const svcd = await SvcdProcess.start({ appId: 'proc-idle', args });
      try {
        await new Promise((resolve) => setTimeout(resolve, 1000)); // start-up work settles
        const pid = svcd.child.pid!;
        const before = wakeUps(pid);
        await new Promise((resolve) => setTimeout(resolve, 2000));
        expect(wakeUps(pid) - before, `wake-ups in 2 s with ${args.join(' ') || 'metrics served'}`).to.be.below(60);
      } finally {
        await svcd.dispose();
      }
    }
  });

  it('answers unknown routes and wrong methods with a JSON error', async () => {
    const svcd = await SvcdProcess.start();
    try {
      const res = await svcd.request('GET', '/v1.0/nothing-here');
      expect(res.status).to.equal(404);
      expect(await res.json()).to.deep.include({ errorCode: 'ERR_NOT_FOUND' });
      const wrong = await svcd.request('DELETE', '/v1.0/metadata');
      expect(wrong.status).to.equal(405);
      expect(await wrong.json()).to.deep.include({ errorCode: 'ERR_METHOD_NOT_ALLOWED' });
      // Methods fetch refuses to send (TRACE) or that svcd knows nowhere (PROPFIND): 405 with a code, never 500.
      for (const method of ['TRACE', 'PROPFIND', 'MKCOL']) {
        const answer = await rawRequest(svcd.ports.http, method, '/v1.0/metadata');
        expect(answer.status, method).to.equal(405);
        expect(JSON.parse(answer.body), method).to.deep.include({ errorCode: 'ERR_METHOD_NOT_ALLOWED' });
      }
    } finally {
      await svcd.stop();
    }
  });

  it('exits 1 naming the folder when a resources path does not exist', async () => {
    const svcd = await SvcdProcess.start({ resourcesPath: '/nonexistent/svc-resources', waitReady: false });
    const exit = await svcd.exited;
    expect(exit.code).to.equal(1);
    expect(svcd.output).to.include('cannot read resources path /nonexistent/svc-resources');
  });
});
