import { expect } from 'chai';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { discoverPluggableComponents } from '../../src/components/pluggable/discovery.js';
import { apisOf } from '../../src/components/pluggable/service-map.js';
import { componentNameOf, listSocketFiles, socketOwnersFrom, warnIfWorldWritable } from '../../src/components/pluggable/socket-folder.js';
import { ExampleComponent, rogueSocket, tempSocketsFolder } from '../support/example-component.js';

const log = pino({ level: 'silent' });
/** svcd's own user and root, as standalone svcd trusts by default. */
const OWN = socketOwnersFrom('', 'standalone', process.geteuid!());

describe('pluggable discovery: naming and service mapping', () => {
  it('names a component after its socket file without the last extension', () => {
    expect(['my-store.sock', 'a.b.sock', 'plain', '.hidden'].map(componentNameOf)).to.deep.equal(['my-store', 'a.b', 'plain', '.hidden']);
  });

  it('maps both package names to APIs and ignores other services', () => {
    const apis = apisOf([
      'grpc.reflection.v1.ServerReflection',
      'dapr.proto.components.v1.StateStore',
      'dapr.proto.components.v1.TransactionalStateStore',
      'dapr.proto.components.v1.InputBinding',
      'dapr.proto.components.v1.OutputBinding',
      'svc.proto.components.v1.PubSub',
      'other.pkg.StateStore',
    ]);
    expect(apis).to.deep.equal([
      { category: 'state', pkg: 'dapr.proto.components.v1', services: ['StateStore', 'TransactionalStateStore', 'InputBinding', 'OutputBinding'] },
      { category: 'bindings', pkg: 'dapr.proto.components.v1', services: ['StateStore', 'TransactionalStateStore', 'InputBinding', 'OutputBinding'] },
      { category: 'pubsub', pkg: 'svc.proto.components.v1', services: ['PubSub'] },
    ]);
  });

  it('prefers svc.proto when a socket lists an API under both packages', () => {
    const [state] = apisOf(['dapr.proto.components.v1.StateStore', 'svc.proto.components.v1.StateStore']);
    expect(state?.pkg).to.equal('svc.proto.components.v1');
  });
});

describe('pluggable discovery over real sockets', function () {
  this.timeout(30_000);
  const started: { stop(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.stop()));
  });
  const example = async (opts: Parameters<typeof ExampleComponent.start>[0]) => {
    const c = await ExampleComponent.start(opts);
    started.push(c);
    return c;
  };

  it('finds nothing in a missing folder', async () => {
    expect(await discoverPluggableComponents(path.join(tempSocketsFolder(), 'absent'), { probeTimeoutMs: 1000, owners: OWN, log })).to.deep.equal([]);
  });

  it('lists only sockets: plain files, folders and symlinks to sockets are skipped', async () => {
    const folder = tempSocketsFolder();
    const c = await example({ folder, name: 'real' });
    writeFileSync(path.join(folder, 'not-a-socket.sock'), 'x');
    mkdirSync(path.join(folder, 'dir.sock'));
    symlinkSync(c.socketPath, path.join(folder, 'link.sock'));
    expect(await listSocketFiles(folder, OWN, log)).to.deep.equal({ sockets: [{ name: 'real', path: c.socketPath }], untrusted: [] });
  });

  it('finds every API of one socket under the svc package, over reflection v1', async () => {
    const folder = tempSocketsFolder();
    await example({ folder, name: 'multi' });
    const [found, ...rest] = await discoverPluggableComponents(folder, { probeTimeoutMs: 3000, owners: OWN, log });
    expect(rest).to.have.length(0);
    expect(found?.name).to.equal('multi');
    expect(found?.reflection).to.equal('v1');
    expect(found?.apis.map((a) => [a.category, a.pkg])).to.have.deep.members([
      ['state', 'svc.proto.components.v1'],
      ['pubsub', 'svc.proto.components.v1'],
      ['bindings', 'svc.proto.components.v1'],
      ['secretstores', 'svc.proto.components.v1'],
    ]);
    expect(found?.apis.find((a) => a.category === 'state')?.services).to.include.members(['StateStore', 'TransactionalStateStore']);
    expect(found?.apis.find((a) => a.category === 'bindings')?.services).to.include.members(['InputBinding', 'OutputBinding']);
  });

  it('falls back to reflection v1alpha and recognises dapr.proto names', async () => {
    const folder = tempSocketsFolder();
    await example({ folder, name: 'legacy', pkg: 'dapr.proto.components.v1', reflection: 'v1alpha' });
    const [found] = await discoverPluggableComponents(folder, { probeTimeoutMs: 3000, owners: OWN, log });
    expect(found?.reflection).to.equal('v1alpha');
    expect(found?.apis.map((a) => a.pkg)).to.deep.equal(['dapr.proto.components.v1', 'dapr.proto.components.v1', 'dapr.proto.components.v1', 'dapr.proto.components.v1']);
  });

  it('skips sockets that never answer or answer garbage, within the probe timeout, and keeps the good one', async () => {
    const folder = tempSocketsFolder();
    started.push(await rogueSocket(path.join(folder, 'silent.sock'), 'silent').then((s) => ({ stop: () => s.close() })));
    started.push(await rogueSocket(path.join(folder, 'garbage.sock'), 'garbage').then((s) => ({ stop: () => s.close() })));
    await example({ folder, name: 'good' });
    const found = await discoverPluggableComponents(folder, { probeTimeoutMs: 1500, owners: OWN, log });
    expect(found.map((f) => f.name)).to.deep.equal(['good']);
  });
});

describe('pluggable discovery: sockets folder permissions', () => {
  const lines = (folder: string, mode: number) => {
    const seen: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void seen.push(line) });
    warnIfWorldWritable(folder, mode, log);
    return seen;
  };

  it('warns when every user of the host may plant a socket', () => {
    const [line] = lines('/tmp/x', 0o40777);
    expect(JSON.parse(line!)).to.deep.include({ folder: '/tmp/x', mode: '777' });
  });

  it('stays quiet for a folder only its owner and group may write', () => {
    expect(lines('/tmp/x', 0o40770)).to.deep.equal([]);
  });
});
