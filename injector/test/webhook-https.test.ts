import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { INJECTOR_OPTIONS } from '../src/config/options.js';
import { NO_API_ACCESS_WARNING } from '../src/patch/build-patch.js';
import { generateCa } from '../src/certs/generate.js';
import { issueClientCert } from './support/client-cert.js';
import { INJECTOR_MAIN, InjectorProcess, removeTestCerts, writeTestCerts, type TestCerts } from './support/injector-process.js';
import { applyAndValidate, container, makePod } from './support/pods.js';
import type { AdmissionReview } from '../src/webhook/admission.js';
import type { V1Pod } from '@kubernetes/client-node';

const CONTROLLER = { username: 'system:serviceaccount:kube-system:replicaset-controller', groups: ['system:serviceaccounts'] };

function review(pod: V1Pod, overrides: Record<string, unknown> = {}): object {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: `uid-${Math.random().toString(36).slice(2)}`, kind: { group: '', version: 'v1', kind: 'Pod' }, operation: 'CREATE', namespace: 'shop', userInfo: CONTROLLER, object: pod, ...overrides },
  };
}

function decodePatch(res: AdmissionReview): Parameters<typeof applyAndValidate>[1] {
  return JSON.parse(Buffer.from(res.response!.patch!, 'base64').toString('utf8')) as Parameters<typeof applyAndValidate>[1];
}

describe('svc-injector over HTTPS (real process, no Kubernetes API)', function () {
  let injector: InjectorProcess;
  let certs: TestCerts;

  before(async () => {
    certs = writeTestCerts();
    injector = await InjectorProcess.start({ certs, args: ['--sidecar-image', 'svc/svcd:e2e'] });
  });
  after(async () => {
    await injector?.stop();
    removeTestCerts(certs);
  });

  it('injects an annotated pod created by a controller, echoing the request uid', async () => {
    const pod = makePod({ annotations: { 'svc.io/pluggable-components': 'comp' }, containers: [{ name: 'app', image: 'a' }, { name: 'comp', image: 'c' }] });
    const body = review(pod) as { request: { uid: string } };
    const res = await injector.request({ path: '/mutate', body });
    expect(res.status).to.equal(200);
    const out = res.body as AdmissionReview;
    expect(out).to.deep.include({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' });
    expect(out.response).to.deep.include({ uid: body.request.uid, allowed: true, patchType: 'JSONPatch' });
    const patched = applyAndValidate(pod, decodePatch(out));
    expect(container(patched, 'svcd').image).to.equal('svc/svcd:e2e');
    expect(container(patched, 'comp').volumeMounts?.[0]?.name).to.equal('svc-components-sockets');
  });

  it('inject mode without API access: allowed with a warning', async () => {
    const pod = makePod({ annotations: { 'svc.io/inject-pluggable-components': 'true' } });
    const out = (await injector.request({ path: '/mutate', body: review(pod) })).body as AdmissionReview;
    expect(out.response?.allowed).to.equal(true);
    expect(out.response?.warnings).to.deep.equal([NO_API_ACCESS_WARNING]);
    expect(applyAndValidate(pod, decodePatch(out)).spec?.containers.map((c) => c.name)).to.deep.equal(['app', 'svcd']);
  });

  it('admits unchanged: other kinds, other operations, pods not opted in, pods with svcd already', async () => {
    const pod = makePod();
    const variants = [
      review(pod, { kind: { group: 'apps', version: 'v1', kind: 'Deployment' } }),
      review(pod, { operation: 'UPDATE' }),
      review(makePod({ annotations: { 'svc.io/enabled': 'false' } })),
      review(makePod({ containers: [{ name: 'app', image: 'a' }, { name: 'svcd', image: 's' }] })),
    ];
    for (const v of variants) {
      const out = (await injector.request({ path: '/mutate', body: v })).body as AdmissionReview;
      expect(out.response?.allowed).to.equal(true);
      expect(out.response).to.not.have.property('patch');
      expect(out.response).to.not.have.property('warnings');
    }
  });

  it('admits pods of untrusted creators unchanged, with a warning; trusts system:masters by default', async () => {
    const pod = makePod();
    const untrusted = (await injector.request({ path: '/mutate', body: review(pod, { userInfo: { username: 'alice', groups: ['system:authenticated'] } }) })).body as AdmissionReview;
    expect(untrusted.response).to.not.have.property('patch');
    expect(untrusted.response?.warnings?.[0]).to.contain('created by alice');
    const admin = (await injector.request({ path: '/mutate', body: review(pod, { userInfo: { username: 'kubernetes-admin', groups: ['system:masters'] } }) })).body as AdmissionReview;
    expect(admin.response?.patchType).to.equal('JSONPatch');
  });

  it('denies a pod whose annotations cannot be honoured, with the reason', async () => {
    const out = (await injector.request({ path: '/mutate', body: review(makePod({ annotations: { 'svc.io/http-port': '0' } })) })).body as AdmissionReview;
    expect(out.response?.allowed).to.equal(false);
    expect(out.response?.status?.code).to.equal(400);
    expect(out.response?.status?.message).to.contain("svc.io/http-port: '0' is not a port number");
    expect(out.response).to.not.have.property('patch');
  });

  it('answers bad requests with coded errors', async () => {
    const cases: Array<[Parameters<InjectorProcess['request']>[0], number, string]> = [
      [{ path: '/mutate', body: '{}', contentType: 'text/plain' }, 415, 'ERR_UNSUPPORTED_MEDIA_TYPE'],
      [{ path: '/mutate', body: '' }, 400, 'ERR_MALFORMED_REQUEST'],
      [{ path: '/mutate', body: '{"kind":' }, 400, 'ERR_MALFORMED_REQUEST'],
      [{ path: '/mutate', body: { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', request: {} } }, 400, 'ERR_MALFORMED_REQUEST'],
      [{ path: '/mutate', method: 'GET' }, 405, 'ERR_METHOD_NOT_ALLOWED'],
      [{ path: '/nope', method: 'GET' }, 404, 'ERR_NOT_FOUND'],
    ];
    for (const [req, status, code] of cases) {
      const res = await injector.request(req);
      expect(res.status, `${req.method ?? 'POST'} ${req.path} ${JSON.stringify(req.body)}`).to.equal(status);
      expect((res.body as { errorCode: string }).errorCode).to.equal(code);
      expect((res.body as { message: string }).message).to.be.a('string').and.not.equal('');
    }
    // Still serving after the bad input.
    expect((await injector.request({ path: '/healthz', method: 'GET' })).status).to.equal(200);
  });

  it('answers malformed AdmissionReviews with 400 naming the field, never a TypeError or a stack', async () => {
    const opted = { 'svc.io/enabled': 'true', 'svc.io/app-id': 'shop' };
    // Deliberately not V1Pods: the shapes a typed client could never send.
    const pod = (spec: unknown, annotations: unknown = opted) => ({ metadata: { name: 'p', annotations }, spec }) as unknown as V1Pod;
    const cases: [string, object, string][] = [
      ['an annotation that is a number', review(pod({ containers: [{ name: 'app' }] }, { ...opted, 'svc.io/app-port': 8080 })), 'request.object.metadata.annotations["svc.io/app-port"] must be a string'],
      ['annotations as a list', review(pod({ containers: [{ name: 'app' }] }, ['svc.io/enabled'])), 'request.object.metadata.annotations must be an object'],
      ['containers as an object', review(pod({ containers: { app: { image: 'a' } } })), 'request.object.spec.containers must be an array'],
      ['a null container', review(pod({ containers: [null] })), 'request.object.spec.containers[0] must be an object'],
      ['a container name that is a number', review(pod({ containers: [{ name: 7 }] })), 'request.object.spec.containers[0].name must be a string'],
      ['a null env entry', review(pod({ containers: [{ name: 'app', env: [null] }] })), 'request.object.spec.containers[0].env[0] must be an object'],
      ['volumes as a string', review(pod({ containers: [{ name: 'app' }], volumes: 'x' })), 'request.object.spec.volumes must be an array'],
      ['a spec that is null', review(pod(null)), 'request.object.spec must be an object'],
      ['groups as a string', review(pod({ containers: [{ name: 'app' }] }), { userInfo: { username: 'u', groups: 'system:masters' } }), 'request.userInfo.groups must be an array'],
      ['a namespace that is a number', review(pod({ containers: [{ name: 'app' }] }), { namespace: 5 }), 'request.namespace must be a string'],
    ];
    for (const [what, body, reason] of cases) {
      const res = await injector.request({ path: '/mutate', body });
      const text = JSON.stringify(res.body);
      expect(res.status, `${what}: ${text}`).to.equal(400);
      expect(res.body, what).to.deep.include({ errorCode: 'ERR_MALFORMED_REQUEST', message: `not an AdmissionReview: ${reason}` });
      expect(text, what).to.not.match(/TypeError|at \w+ \(|\.js:\d+/);
    }
    expect((await injector.request({ path: '/healthz', method: 'GET' })).status).to.equal(200);
  });

  it('lists every flag and env var in --help and refuses unknown flags', () => {
    const help = spawnSync(process.execPath, [INJECTOR_MAIN, '--help'], { encoding: 'utf8' });
    expect(help.status).to.equal(0);
    for (const def of INJECTOR_OPTIONS) expect(help.stdout).to.contain(`--${def.flag}`).and.contain(def.env);
    const bad = spawnSync(process.execPath, [INJECTOR_MAIN, '--no-such-flag'], { encoding: 'utf8' });
    expect(bad.status).to.equal(2);
    expect(bad.stderr).to.contain('--no-such-flag');
    const noTls = spawnSync(process.execPath, [INJECTOR_MAIN], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    expect(noTls.status).to.equal(2);
    expect(noTls.stderr).to.contain('--tls-cert-file');
  });
});

describe('svc-injector with --client-ca-file (real process over HTTPS)', function () {
  let injector: InjectorProcess;
  let certs: TestCerts;
  const apiServerCa = generateCa({ commonName: 'webhook-clients', validityDays: 1, now: new Date() });
  const otherCa = generateCa({ commonName: 'someone-else', validityDays: 1, now: new Date() });

  before(async () => {
    certs = writeTestCerts();
    const caFile = path.join(certs.dir, 'clients-ca.pem');
    writeFileSync(caFile, apiServerCa.cert);
    injector = await InjectorProcess.start({ certs, args: ['--sidecar-image', 'svc/svcd:e2e', '--client-ca-file', caFile] });
  });
  after(async () => {
    await injector?.stop();
    removeTestCerts(certs);
  });

  it('answers /mutate only to a caller with a certificate of that CA; health stays open for probes', async () => {
    const body = review(makePod({ annotations: { 'svc.io/pluggable-components': 'comp' }, containers: [{ name: 'app', image: 'a' }, { name: 'comp', image: 'c' }] }), { userInfo: { username: 'admin', groups: ['system:masters'] } });
    for (const [who, clientCert] of [['no certificate', undefined], ['a certificate of another CA', issueClientCert(otherCa, 'kube-apiserver')]] as const) {
      const res = await injector.request({ path: '/mutate', body, ...(clientCert ? { clientCert } : {}) });
      expect(res.status, who).to.equal(401);
      expect(res.body, who).to.deep.include({ errorCode: 'ERR_UNAUTHORIZED' });
      expect(res.text, who).to.not.include('svcd');
    }
    const allowed = await injector.request({ path: '/mutate', body, clientCert: issueClientCert(apiServerCa, 'kube-apiserver-webhook-client') });
    expect(allowed.status).to.equal(200);
    expect((allowed.body as AdmissionReview).response?.patchType).to.equal('JSONPatch');
    expect((await injector.request({ path: '/healthz', method: 'GET' })).status).to.equal(200);
  });
});
