import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { componentYaml, daprRuntimeClient, SvcdProcess } from '../support/index.js';

/** dist/test/launcher → scripts/make-snapshot.cjs */
const MAKE_SNAPSHOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../scripts/make-snapshot.cjs');

function grpcMetadataId(address: string): Promise<string | undefined> {
  const client = daprRuntimeClient<Record<string, (req: unknown, meta: grpc.Metadata, cb: (err: grpc.ServiceError | null, res: { id?: string }) => void) => void>>(address);
  const meta = new grpc.Metadata();
  meta.set('dapr-api-token', 'run-time-token');
  return new Promise<string | undefined>((resolve, reject) =>
    client.GetMetadata!.call(client, {}, meta, (err, res) => {
      client.close();
      return err ? reject(err) : resolve(res.id);
    }),
  );
}

describe('svcd started from a V8 startup snapshot (scripts/make-snapshot.cjs)', function () {
  this.timeout(120_000);
  let dir: string;
  let blob: string;

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'svcd-snapshot-'));
    blob = path.join(dir, 'svcd.blob');
    execFileSync(process.execPath, [MAKE_SNAPSHOT, blob], { encoding: 'utf8' });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("serves HTTP and gRPC with the flags and environment of the start, not the build's", async () => {
    const svcd = await SvcdProcess.start({
      appId: 'from-snapshot',
      nodeArgs: ['--snapshot-blob', blob],
      svcdMain: 'svcd',
      env: { SVC_API_TOKEN: 'run-time-token' },
      resources: { 'store.yaml': componentYaml('store', 'state.sqlite') },
    });
    try {
      const token = { 'dapr-api-token': 'run-time-token' };
      expect((await svcd.request('GET', '/v1.0/metadata')).status, 'the API token of the start is required').to.equal(401);
      expect((await svcd.request('POST', '/v1.0/state/store', [{ key: 'k', value: { n: 1 } }], token)).status).to.equal(204);
      expect(await (await svcd.request('GET', '/v1.0/state/store/k', undefined, token)).json()).to.deep.equal({ n: 1 });
      expect(await (await svcd.request('GET', '/v1.0/metadata', undefined, token)).json()).to.deep.include({ id: 'from-snapshot' });
      expect(await grpcMetadataId(svcd.grpcAddress)).to.equal('from-snapshot');
      // --log-as-json, given at the start: every line is JSON.
      const lines = svcd.output.split('\n').filter((line) => line.startsWith('{'));
      expect(lines.some((line) => (JSON.parse(line) as { msg?: string }).msg === 'svcd started')).to.equal(true);
    } finally {
      await svcd.dispose();
    }
  });
});
