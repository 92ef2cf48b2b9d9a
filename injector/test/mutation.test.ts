import { expect } from 'chai';
import { pino } from 'pino';
import type { ComponentObject } from '../src/components/component-containers.js';
import type { ComponentSource } from '../src/components/component-source.js';
import { InjectorError } from '../src/errors.js';
import type { AdmissionReview } from '../src/webhook/admission.js';
import { MutationService } from '../src/webhook/mutation.js';
import { CreatorTrust } from '../src/webhook/trust.js';
import { applyAndValidate, makePod } from './support/pods.js';

/** A hand-written ComponentSource: records the namespaces asked for, answers from a map or fails. */
class FakeComponentSource implements ComponentSource {
  readonly asked: string[] = [];
  constructor(private readonly byNamespace: Record<string, ComponentObject[]>, private readonly failure?: Error) {}
  list(namespace: string): Promise<ComponentObject[]> {
    this.asked.push(namespace);
    return this.failure ? Promise.reject(this.failure) : Promise.resolve(this.byNamespace[namespace] ?? []);
  }
}

const settings = { sidecarImage: 'svc/svcd:t', sidecarImagePullPolicy: 'IfNotPresent', socketsFolder: '/tmp/svc-components-sockets', componentContainerPolicy: 'restricted' as const };
/** As when the API server presented its client certificate. */
const VERIFIED = { verified: true };
const trust = new CreatorTrust({ extraServiceAccounts: ['ci:deployer-*'], groups: [] });

function review(pod = makePod({ annotations: { 'svc.io/inject-pluggable-components': 'true' } }), username = 'system:serviceaccount:kube-system:job-controller'): AdmissionReview {
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u1', kind: { group: '', version: 'v1', kind: 'Pod' }, operation: 'CREATE', namespace: 'shop', userInfo: { username }, object: pod } };
}

describe('injector mutation service', () => {
  it('reads the Components of the request namespace only when the pod asks for injection', async () => {
    const source = new FakeComponentSource({ shop: [{ metadata: { name: 's', annotations: { 'svc.io/component-container': '{"name":"c","image":"i"}' } }, scopes: ['myapp'] }] });
    const service = new MutationService({ trust, components: source, settings, log: pino({ level: 'silent' }) });
    const out = await service.review(review(), VERIFIED);
    const patch = JSON.parse(Buffer.from(out.response!.patch!, 'base64').toString()) as Parameters<typeof applyAndValidate>[1];
    expect(applyAndValidate(makePod({ annotations: { 'svc.io/inject-pluggable-components': 'true' } }), patch).spec?.containers.map((c) => c.name)).to.deep.equal(['app', 'c', 'svcd']);
    expect(source.asked).to.deep.equal(['shop']);
    await service.review(review(makePod()), VERIFIED);
    expect(source.asked).to.deep.equal(['shop']);
  });

  it('lets a failed Component list surface as ERR_KUBERNETES_API (HTTP 500: the failure policy decides)', async () => {
    const source = new FakeComponentSource({}, new InjectorError('ERR_KUBERNETES_API', 'cannot list components.svc.io in namespace shop: connection refused'));
    const service = new MutationService({ trust, components: source, settings, log: pino({ level: 'silent' }) });
    const err = await service.review(review(), VERIFIED).then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(InjectorError);
    expect((err as InjectorError).httpStatus).to.equal(500);
  });

  it('hands literal env values of component containers only to a verified API server; references always', async () => {
    const container = { name: 'c', image: 'i', env: [{ name: 'PASSWORD', value: 's3cret' }, { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }] };
    const source = new FakeComponentSource({ shop: [{ metadata: { name: 's', annotations: { 'svc.io/component-container': JSON.stringify(container) } }, scopes: ['myapp'] }] });
    const service = new MutationService({ trust, components: source, settings, log: pino({ level: 'silent' }) });
    const unverified = await service.review(review(), { verified: false });
    expect(unverified.response).to.include({ allowed: false }).and.not.have.property('patch');
    expect(unverified.response?.status?.message).to.include('component "s": container "c" sets env PASSWORD as a literal value').and.include('--client-ca-file');
    expect(JSON.stringify(unverified)).to.not.include('s3cret');
    const verified = await service.review(review(), VERIFIED);
    expect(Buffer.from(verified.response!.patch!, 'base64').toString()).to.include('s3cret');
    const referencesOnly = { ...container, env: [container.env[1]] };
    const source2 = new FakeComponentSource({ shop: [{ metadata: { name: 's', annotations: { 'svc.io/component-container': JSON.stringify(referencesOnly) } }, scopes: ['myapp'] }] });
    const service2 = new MutationService({ trust, components: source2, settings, log: pino({ level: 'silent' }) });
    expect((await service2.review(review(), { verified: false })).response?.patchType).to.equal('JSONPatch');
  });

  it('trusts service accounts matching --allowed-service-accounts globs, and nobody else', async () => {
    const service = new MutationService({ trust, components: new FakeComponentSource({}), settings, log: pino({ level: 'silent' }) });
    const pod = makePod();
    expect((await service.review(review(pod, 'system:serviceaccount:ci:deployer-7'), VERIFIED)).response?.patchType).to.equal('JSONPatch');
    for (const who of ['system:serviceaccount:ci:builder', 'system:serviceaccount:ci2:deployer-7', 'system:serviceaccount:kube-system:deployment-controller', 'ci:deployer-7']) {
      expect((await service.review(review(pod, who), VERIFIED)).response, who).to.not.have.property('patch');
    }
  });
});
