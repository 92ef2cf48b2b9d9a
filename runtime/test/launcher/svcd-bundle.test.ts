import type * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileSvcdBundle, SVCD_CODE_CACHE_FILE } from '../../src/launcher/svcd-bundle.cjs';
import { componentYaml, daprRuntimeClient, SvcdProcess, tracingConfiguration } from '../support/index.js';

/**
 * A probe loaded into svcd with `--require`: when svcd logs that it started (as it turns ready, before any timer
 * it set then can run), it notes whether Node's `http2` is loaded and how often JavaScript outside Node captured a
 * stack (`Error.captureStackTrace`: depd does, to read its caller's line, which makes V8 find every line end of
 * the bundle); it writes that as svcd exits.
 */
const START_PROBE = `const capture = Error.captureStackTrace;
let stackCaptures = 0;
Error.captureStackTrace = function (...args) { stackCaptures += 1; return capture.apply(this, args); };
let atReady;
const write = process.stdout.write;
process.stdout.write = function (chunk, ...rest) {
  if (atReady === undefined && String(chunk).includes('svcd started')) atReady = { http2: process.moduleLoadList.includes('NativeModule http2'), stackCaptures };
  return write.call(this, chunk, ...rest);
};
process.on('exit', () => require('node:fs').writeFileSync(process.env.START_PROBE_OUT, JSON.stringify(atReady)));
`;

/** What V8 makes of the build's code cache in a Node started with `flags`. */
function codeCacheUseWith(flags: string[]): string {
  const launcher = new URL('../../src/launcher/svcd-bundle.cjs', import.meta.url).href;
  return execFileSync(process.execPath, [...flags, '--input-type=module', '-e', `import { compileSvcdBundle } from '${launcher}'; process.stdout.write(compileSvcdBundle().codeCache);`], { encoding: 'utf8' });
}

describe("svcd's bundle and its code cache", function () {
  this.timeout(60_000);

  it('compiles with the code cache the build made, which this Node accepts', () => {
    expect(compileSvcdBundle().codeCache, SVCD_CODE_CACHE_FILE).to.equal('accepted');
    expect(compileSvcdBundle(false).codeCache).to.equal('none');
  });

  it('starts and serves with a cache V8 refuses (a Node with other heap flags compiles the bundle as usual)', async () => {
    const flags = ['--max-old-space-size=300'];
    expect(codeCacheUseWith(flags)).to.equal('rejected');
    const svcd = await SvcdProcess.start({ env: { NODE_OPTIONS: flags.join(' ') }, resources: { 'store.yaml': componentYaml('store', 'state.in-memory') } });
    try {
      expect((await svcd.request('POST', '/v1.0/state/store', [{ key: 'k', value: 'v' }])).status).to.equal(204);
      expect(await (await svcd.request('GET', '/v1.0/state/store/k')).json()).to.equal('v');
    } finally {
      await svcd.dispose();
    }
  });

  it('loads the tracing SDK, a part of the bundle run on demand, when a Configuration turns tracing on', async () => {
    const resources = { 'store.yaml': componentYaml('store', 'state.in-memory'), 'config.yaml': tracingConfiguration({ samplingRate: 0 }) };
    const svcd = await SvcdProcess.start({ resources });
    try {
      expect(svcd.output).to.include('tracing on');
      expect((await svcd.request('POST', '/v1.0/state/store', [{ key: 'k', value: 'v' }])).status).to.equal(204);
    } finally {
      await svcd.dispose();
    }
  });

  it("turns ready without loading grpc-js (Node's http2) or capturing a stack (depd), then serves gRPC", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svcd-start-probe-'));
    try {
      writeFileSync(path.join(dir, 'probe.cjs'), START_PROBE);
      const out = path.join(dir, 'at-ready.json');
      const svcd = await SvcdProcess.start({ env: { NODE_OPTIONS: `--require ${path.join(dir, 'probe.cjs')}`, START_PROBE_OUT: out } });
      try {
        const client = daprRuntimeClient<Record<string, (req: unknown, cb: (err: grpc.ServiceError | null, res: { id?: string }) => void) => void>>(svcd.grpcAddress);
        const metadata = await new Promise<{ id?: string }>((resolve, reject) => client.GetMetadata!.call(client, {}, (err, res) => (err ? reject(err) : resolve(res))));
        expect(metadata.id).to.equal('testapp');
        client.close();
      } finally {
        await svcd.stop();
        await svcd.dispose();
      }
      expect(JSON.parse(readFileSync(out, 'utf8'))).to.deep.equal({ http2: false, stackCaptures: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
