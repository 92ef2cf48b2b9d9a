import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { TestChildProcess, eventually, freePort, removeTempFolder, tempFolder } from '@svc/runtime/test-support';

const run = promisify(execFile);
const REPOSITORY = path.resolve(path.dirname(createRequire(import.meta.url).resolve('@svc/runtime/package.json')), '..');
/** A workflow app of the user's: the example's worker, run by the installed `svc run` as the app. */
const EXAMPLE_WORKER = path.join(path.dirname(createRequire(import.meta.url).resolve('@svc/example-workflow-app/package.json')), 'dist', 'src', 'worker.js');
const VERSION = (JSON.parse(readFileSync(path.join(REPOSITORY, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * svc as a user installs it: the tarball `make package` builds, installed with `npm install -g` into a prefix of
 * its own with npm offline (nothing fetched, nothing compiled), then used from an empty folder outside the
 * repository with a PATH that has only the install's bin and Node's — the README's quick start.
 */
describe('the installable package (npm pack tarball, installed outside the repository)', function () {
  this.timeout(300_000);
  let work: string;
  let tarball: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    work = tempFolder('svc-package-');
    const made = await run(process.execPath, [path.join(REPOSITORY, 'scripts', 'package.mjs'), '--out', work], { cwd: REPOSITORY });
    tarball = made.stdout.trim();
    const prefix = path.join(work, 'prefix');
    // As the README says: a path starting with ./ (npm reads `dist/x.tgz` as a GitHub repository). A cache of its
    // own: an offline install can only use what the tarball holds.
    await run('npm', ['install', '--global', '--prefix', prefix, '--offline', '--cache', path.join(work, 'npm-cache'), '--no-audit', '--no-fund', `./${path.basename(tarball)}`], { cwd: path.dirname(tarball) });
    env = { PATH: `${path.join(prefix, 'bin')}:${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: work };
  });
  after(() => removeTempFolder(work));

  it('is one tarball per platform and Node.js major, with no dependency to install', () => {
    expect(path.basename(tarball)).to.equal(`svc-${VERSION}-${process.platform}-${process.arch}-node${process.versions.node.split('.')[0]}.tgz`);
    const installed = path.join(work, 'prefix', 'lib', 'node_modules', 'svc');
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).to.include({ name: 'svc', version: VERSION });
    expect(manifest).to.not.have.property('dependencies');
    // The installed files are copies, not links into the repository.
    expect(realpathSync(path.join(work, 'prefix', 'bin', 'svcd'))).to.satisfy((p: string) => p.startsWith(installed));
    expect(existsSync(path.join(installed, 'lib', 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'))).to.equal(true);
  });

  it('svc --version and svcd --version print the package version', async () => {
    const folder = tempFolder('svc-empty-');
    try {
      expect((await run('svc', ['--version'], { cwd: folder, env })).stdout.trim()).to.equal(`svc ${VERSION}`);
      expect((await run('svcd', ['--version'], { cwd: folder, env })).stdout.trim()).to.include(VERSION);
    } finally {
      removeTempFolder(folder);
    }
  });

  it("the README's quick start works from an empty folder: svc run with an app, state, pub/sub, a workflow, the UI, the CLI", async () => {
    const folder = tempFolder('svc-empty-');
    const [http, grpc] = [await freePort(), await freePort()];
    const ports = { SVC_HTTP_PORT: String(http), SVC_GRPC_PORT: String(grpc), SVC_METRICS_PORT: '0' };
    const svc = new TestChildProcess(spawn('svc', ['run', '--app-id', 'myapp', '--', 'node', EXAMPLE_WORKER], { cwd: folder, env: { ...env, ...ports } }));
    try {
      await eventually('svcd ready', () => Promise.resolve(svc.output.includes('svc: svcd ready') || svc.child.exitCode !== null), 60_000);
      expect(svc.output).to.include('svc: svcd ready');
      expect(existsSync(path.join(folder, '.svc', 'resources', 'statestore.yaml'))).to.equal(true);
      const api = `http://127.0.0.1:${http}/v1.0`;
      const json = { 'content-type': 'application/json' };
      expect((await fetch(`${api}/state/statestore`, { method: 'POST', headers: json, body: '[{"key":"k","value":{"hello":"world"}}]' })).status).to.equal(204);
      expect(await (await fetch(`${api}/state/statestore/k`)).text()).to.equal('{"hello":"world"}');
      expect((await fetch(`${api}/publish/pubsub/orders`, { method: 'POST', headers: json, body: '{"orderId":1}' })).status).to.equal(204);
      const metadata = (await (await fetch(`${api}/metadata`)).json()) as { runtimeVersion: string };
      expect(metadata.runtimeVersion).to.equal(VERSION);
      const ui = await fetch(`http://127.0.0.1:${http}/ui/`);
      expect(ui.status).to.equal(200);
      expect(await ui.text()).to.include('main.js');
      const cli = (...args: string[]) => run('svc', ['workflow', ...args], { cwd: folder, env: { ...env, ...ports } });
      await cli('start', 'order', '--id', 'order-1', '--input', '{"item":"clips","quantity":2,"customer":"ada"}');
      await eventually('order-1 completed', async () => (await cli('get', 'order-1')).stdout.includes('COMPLETED'), 60_000);
      expect((await cli('list')).stdout).to.match(/^INSTANCE ID/).and.match(/^order-1 +order +COMPLETED/m);
    } finally {
      svc.child.kill('SIGINT');
      await svc.exited;
      removeTempFolder(folder);
    }
    expect(svc.output, svc.output).to.include('svcd stopped');
  });
});
