/**
 * servedServiceOnUse: a service registered at start from the build's parse, its root built on the first call (or by
 * buildDeferredServices). Its paths, stream kinds and conversions must be servedService's.
 */
import { expect } from 'chai';
import { buildDeferredServices, DURABLETASK_PROTO_FILE, loadProtoRoot, servedService, servedServiceOnUse } from '@svc/proto';

describe('servedServiceOnUse', () => {
  const files = [DURABLETASK_PROTO_FILE];
  const counted = () => {
    const built = { count: 0 };
    return { built, root: () => (built.count++, loadProtoRoot(files)) };
  };

  it('describes the service without building its root, and converts as servedService on the first call', () => {
    const { built, root } = counted();
    const lazy = servedServiceOnUse(files, root, 'TaskHubSidecarService');
    const eager = servedService(loadProtoRoot(files), 'TaskHubSidecarService');
    expect(built.count).to.equal(0);
    expect(Object.keys(lazy).sort()).to.deep.equal(Object.keys(eager).sort());
    for (const [name, m] of Object.entries(eager)) {
      const l = lazy[name]!;
      expect([l.path, l.originalName, l.requestStream, l.responseStream], name).to.deep.equal([m.path, m.originalName, m.requestStream, m.responseStream]);
    }
    const request = { instanceId: 'i', executionId: { value: 'e' }, pastEvents: [{ eventId: 1, executionStarted: { name: 'wf' } }] };
    const bytes = lazy.CompleteOrchestratorTask!.requestSerialize({ instanceId: 'i', actions: [] });
    expect(bytes.toString('hex')).to.equal(eager.CompleteOrchestratorTask!.requestSerialize({ instanceId: 'i', actions: [] }).toString('hex'));
    const sent = eager.StartInstance!.requestSerialize({ instanceId: 'x', name: 'wf' });
    expect(lazy.StartInstance!.requestDeserialize(sent)).to.deep.equal(eager.StartInstance!.requestDeserialize(sent));
    expect(JSON.stringify(lazy.GetWorkItems!.responseSerialize({ orchestratorRequest: request }))).to.equal(JSON.stringify(eager.GetWorkItems!.responseSerialize({ orchestratorRequest: request })));
    // One root for all the methods.
    expect(built.count).to.equal(1);
  });

  it('builds the deferred roots when asked, once', () => {
    const { built, root } = counted();
    const lazy = servedServiceOnUse(files, root, 'TaskHubSidecarService');
    buildDeferredServices();
    expect(built.count).to.equal(1);
    lazy.StartInstance!.requestSerialize({ instanceId: 'x', name: 'wf' });
    buildDeferredServices();
    expect(built.count).to.equal(1);
  });
});
