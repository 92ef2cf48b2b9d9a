import { expect } from 'chai';
import { componentYaml, InstanceListingClient, rpcFailure, SvcdProcess } from '../support/index.js';
import { ExampleComponent, tempSocketsFolder } from '../support/example-component.js';

/** A pluggable store cannot check fences: it serves actors single-host, and svcd says so at start. */
describe('a pluggable actor state store', function () {
  this.timeout(60_000);

  it('runs actors single-host, says so at start, and opens no internal port', async () => {
    const folder = tempSocketsFolder();
    const component = await ExampleComponent.start({ folder, name: 'memstore' });
    let svcd: SvcdProcess | undefined;
    try {
      svcd = await SvcdProcess.start({ socketsFolder: folder, resources: { 'store.yaml': componentYaml('actors', 'state.memstore', { actorStateStore: 'true' }) } });
      const meta = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { actorRuntime: { placement: string; peers?: unknown } };
      expect(meta.actorRuntime.placement).to.equal('single-host');
      expect(meta.actorRuntime.peers).to.equal(undefined);
      expect(svcd.output).to.contain('cannot arbitrate between replicas').and.to.contain('run ONE replica');
      expect(svcd.output).to.not.contain('joining the replicas');
    } finally {
      await svcd?.dispose();
      await component.stop();
    }
  });

  it('cannot list or purge workflow instances by filter: UNIMPLEMENTED, naming the store', async () => {
    const folder = tempSocketsFolder();
    const component = await ExampleComponent.start({ folder, name: 'memstore' });
    let svcd: SvcdProcess | undefined;
    let rpc: InstanceListingClient | undefined;
    try {
      svcd = await SvcdProcess.start({ socketsFolder: folder, resources: { 'store.yaml': componentYaml('actors', 'state.memstore', { actorStateStore: 'true' }) } });
      rpc = new InstanceListingClient(svcd.grpcAddress);
      for (const call of [rpc.listPage({ pageSize: 10 }), rpc.purge({ runtimeStatus: ['ORCHESTRATION_STATUS_COMPLETED'] })]) {
        const failure = await rpcFailure(call);
        expect(failure?.code).to.equal('UNIMPLEMENTED');
        expect(failure?.details).to.contain('state store actors (state.memstore) cannot list keys');
      }
    } finally {
      rpc?.close();
      await svcd?.dispose();
      await component.stop();
    }
  });
});
