/**
 * A pluggable secret store (the example component's `SecretStore` service) under both package names: discovered
 * as `secretstores.<socket>`, read over HTTP and with the Dapr SDK over gRPC, its failures answered as
 * ERR_SECRET_GET, listed in /v1.0/metadata, and usable in another Component's secretKeyRef.
 */
import { CommunicationProtocolEnum, DaprClient, LogLevel } from '@dapr/dapr';
import { expect } from 'chai';
import { componentYaml, ExampleComponent, SvcdProcess, tempSocketsFolder } from '@svc/runtime/test-support';

const referencing = `apiVersion: svc.io/v1alpha1
kind: Component
metadata:
  name: cache
spec:
  type: state.in-memory
  version: v1
  metadata:
    - name: password
      secretKeyRef:
        name: db-password
auth:
  secretStore: vault
`;

for (const pkg of ['svc.proto.components.v1', 'dapr.proto.components.v1'] as const) {
  describe(`pluggable secret store served under ${pkg}`, function () {
    this.timeout(60_000);
    let component: ExampleComponent;
    let svcd: SvcdProcess;

    before(async () => {
      const folder = tempSocketsFolder();
      component = await ExampleComponent.start({ folder, name: 'vaultsock', pkg });
      svcd = await SvcdProcess.start({
        socketsFolder: folder,
        resources: {
          'vault.yaml': componentYaml('vault', 'secretstores.vaultsock', { 'secret.db-password': 'pw-1', 'secret.api': 'k-2' }),
          'cache.yaml': referencing,
        },
      });
    });
    after(async () => {
      await svcd?.dispose();
      await component?.stop();
    });

    it('serves get and bulk over HTTP, and a missing secret as ERR_SECRET_GET', async () => {
      expect(await (await svcd.request('GET', '/v1.0/secrets/vault/api')).json()).to.deep.equal({ api: 'k-2' });
      expect(await (await svcd.request('GET', '/v1.0/secrets/vault/bulk')).json()).to.deep.equal({ 'db-password': { 'db-password': 'pw-1' }, api: { api: 'k-2' } });
      const missing = await svcd.request('GET', '/v1.0/secrets/vault/nope');
      expect(missing.status).to.equal(500);
      expect(((await missing.json()) as { errorCode: string }).errorCode).to.equal('ERR_SECRET_GET');
    });

    it('answers the Dapr SDK over gRPC', async () => {
      const client = new DaprClient({ daprHost: '127.0.0.1', daprPort: String(svcd.ports.grpc), communicationProtocol: CommunicationProtocolEnum.GRPC, logger: { level: LogLevel.Error } });
      try {
        expect(await client.secret.get('vault', 'db-password')).to.deep.equal({ 'db-password': 'pw-1' });
        expect(await client.secret.getBulk('vault')).to.deep.include({ api: { api: 'k-2' } });
      } finally {
        await client.stop();
      }
    });

    it('is listed as a pluggable secret store, and resolved the other Component\'s reference before it started', async () => {
      const meta = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { components: Array<{ name: string; type: string; origin?: string }> };
      expect(meta.components.find((c) => c.name === 'vault')).to.include({ type: 'secretstores.vaultsock' });
      expect(meta.components.map((c) => c.name)).to.include('cache');
      expect(svcd.output).to.not.include('pw-1');
    });
  });
}
