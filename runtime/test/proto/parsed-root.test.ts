/**
 * The `.proto` files parsed at build (@svc/proto's writeParsedRoots, run by the bundle step): svcd loads the JSON
 * the build wrote instead of parsing the text at start. The root rebuilt from it must be the parsed one, message
 * for message and byte for byte; and an edited `.proto` must be parsed again, never served from a stale JSON.
 */
import { expect } from 'chai';
import { loadProtoRoot, PROTO_ROOT, writeParsedRoots } from '@svc/proto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

describe('proto roots parsed at build', () => {
  let dir: string;
  let folders: { sources: string; parsed: string };

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'svc-parsed-root-'));
    folders = { sources: path.join(dir, 'proto'), parsed: path.join(dir, 'parsed') };
    // The package's .proto files, not its build output.
    cpSync(PROTO_ROOT, folders.sources, { recursive: true, filter: (p) => !/[\\/](dist|src|node_modules|scripts)$/.test(p) });
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('rebuilds every file as parsing its text does, and encodes the same bytes', () => {
    const textOnly = { sources: folders.sources, parsed: path.join(dir, 'none') };
    const files = writeParsedRoots(folders);
    expect(files).to.include.members(['svc/runtime/v1/runtime.proto', 'durabletask/orchestrator_service.proto', 'grpc/health/v1/health.proto']);
    for (const file of files) {
      expect(JSON.stringify(loadProtoRoot([file], folders).toJSON()), file).to.equal(JSON.stringify(loadProtoRoot([file], textOnly).toJSON()));
    }
    // A map, an enum, bytes, a oneof, well-known wrappers and nested messages, through both roots.
    const message = {
      storeName: 's',
      states: [{ key: 'k', value: Buffer.from([1, 2, 3]), etag: { value: '7' }, metadata: { ttlInSeconds: '5' }, options: { concurrency: 'CONCURRENCY_FIRST_WRITE' } }],
    };
    const encoded = (root: ReturnType<typeof loadProtoRoot>) => {
      const type = root.lookupType('svc.proto.runtime.v1.SaveStateRequest');
      return Buffer.from(type.encode(type.fromObject(message)).finish()).toString('hex');
    };
    const runtimeApi = ['svc/common/v1/common.proto', 'svc/runtime/v1/runtime.proto'];
    expect(encoded(loadProtoRoot(runtimeApi, folders))).to.equal(encoded(loadProtoRoot(runtimeApi, textOnly)));
    const request = { instanceId: 'i', executionId: { value: 'e' }, pastEvents: [{ eventId: 3, timestamp: { seconds: '10', nanos: 5 }, executionStarted: { name: 'wf', input: { value: 'x' } } }] };
    const historyBytes = (root: ReturnType<typeof loadProtoRoot>) => {
      const type = root.lookupType('OrchestratorRequest');
      return Buffer.from(type.encode(type.fromObject(request)).finish()).toString('hex');
    };
    const durableTask = ['durabletask/orchestrator_service.proto'];
    expect(historyBytes(loadProtoRoot(durableTask, folders))).to.equal(historyBytes(loadProtoRoot(durableTask, textOnly)));
  });

  it('loads the JSON while the files are unchanged, and parses a file edited since', () => {
    writeParsedRoots(folders);
    const file = 'grpc/health/v1/health.proto';
    // Marks the JSON: a root from it has a message the text does not.
    const json = path.join(folders.parsed, `${file}.json`);
    const doc = JSON.parse(readFileSync(json, 'utf8')) as { root: { nested: Record<string, unknown> } };
    doc.root.nested.FromTheBuild = { fields: { a: { type: 'string', id: 1 } } };
    writeFileSync(json, JSON.stringify(doc));
    expect(loadProtoRoot([file], folders).get('FromTheBuild')).to.not.equal(null);

    const source = path.join(folders.sources, file);
    writeFileSync(source, `${readFileSync(source, 'utf8')}\nmessage EditedSince { string b = 1; }\n`);
    const root = loadProtoRoot([file], folders);
    expect(root.get('FromTheBuild')).to.equal(null);
    expect(root.lookup('grpc.health.v1.EditedSince')).to.not.equal(null);
  });

  it('parses the text when the build wrote nothing', () => {
    const root = loadProtoRoot(['grpc/health/v1/health.proto'], { sources: folders.sources, parsed: path.join(dir, 'none') });
    expect(root.lookupService('grpc.health.v1.Health').methodsArray.map((m) => m.name)).to.include('Check');
  });
});
