/**
 * The svcd container the injector writes must be one svcd accepts: every SVC_* variable is a real svcd option
 * and every value parses. Checked against the real svcd binary of this repository (runtime/dist).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { buildPodPatch } from '../src/patch/build-patch.js';
import { applyAndValidate, container, makePod } from './support/pods.js';

const SVCD = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../runtime/bin/svcd.js');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function injectedSvcdEnv(annotations: Record<string, string>): Record<string, string> {
  const pod = makePod({ annotations });
  const out = buildPodPatch({ pod, components: [], settings: { sidecarImage: 'x', sidecarImagePullPolicy: 'IfNotPresent', socketsFolder: '/tmp/svc-components-sockets', componentContainerPolicy: 'restricted' as const }, callerVerified: true });
  if (out.kind !== 'patch') throw new Error(out.reason);
  const svcd = container(applyAndValidate(pod, out.patch), 'svcd');
  return Object.fromEntries((svcd.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]));
}

describe('injected svcd configuration against the real svcd', function () {
  this.timeout(60_000);
  const annotations = { 'svc.io/max-request-size': '8Mi', 'svc.io/log-level': 'debug', 'svc.io/app-port': '8080', 'svc.io/app-protocol': 'grpc', 'svc.io/enable-app-health-check': 'true', 'svc.io/app-health-probe-interval': '2s', 'svc.io/app-health-threshold': '5', 'svc.io/config': 'c' };

  it('every SVC_* variable the injector sets is an svcd option', () => {
    const help = spawnSync(process.execPath, [SVCD, '--help'], { encoding: 'utf8' });
    expect(help.status, help.stderr).to.equal(0);
    const names = Object.keys(injectedSvcdEnv(annotations)).filter((n) => n.startsWith('SVC_'));
    expect(names.length).to.be.greaterThan(8);
    for (const name of [...names, 'NAMESPACE', 'SVC_INTERNAL_ADDRESS']) expect(help.stdout, name).to.contain(name);
  });

  it('svcd starts with the injected values (ports and data folder moved for this machine, standalone components)', async () => {
    const work = mkdtempSync(path.join(os.tmpdir(), 'svcd-compat-'));
    // The Configuration the svc.io/config annotation names (kubernetes mode gets it from the API server).
    mkdirSync(path.join(work, 'resources'));
    writeFileSync(path.join(work, 'resources', 'c.yaml'), 'apiVersion: svc.io/v1alpha1\nkind: Configuration\nmetadata:\n  name: c\nspec: {}\n');
    const env = {
      ...injectedSvcdEnv(annotations),
      SVC_MODE: 'standalone',
      SVC_LISTEN_ADDRESS: '127.0.0.1',
      SVC_HTTP_PORT: String(await freePort()),
      SVC_GRPC_PORT: String(await freePort()),
      SVC_INTERNAL_GRPC_PORT: String(await freePort()),
      SVC_INTERNAL_ADDRESS: '127.0.0.1',
      SVC_METRICS_PORT: String(await freePort()),
      SVC_APP_PORT: '0',
      SVC_DATA_DIR: path.join(work, 'data'),
      SVC_RESOURCES_PATH: path.join(work, 'resources'),
      SVC_COMPONENTS_SOCKETS_FOLDER: path.join(work, 'sockets'),
      NAMESPACE: 'shop',
    };
    const child = spawn(process.execPath, [SVCD], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    try {
      await new Promise<void>((resolve, reject) => {
        const onData = (d: Buffer) => {
          output += d.toString();
          if (output.includes('svcd started')) resolve();
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.once('exit', (code) => reject(new Error(`svcd exited with ${code}:\n${output}`)));
      });
      // JSON log lines, as the injector asks by default.
      expect(output.split('\n').find((l) => l.includes('svcd started'))).to.match(/^\{.*"level":"info"/);
      const res = await fetch(`http://127.0.0.1:${env.SVC_HTTP_PORT}/v1.0/healthz`);
      expect(res.status).to.equal(204);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
      rmSync(work, { recursive: true, force: true });
    }
  });
});
