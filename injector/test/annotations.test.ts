import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { parseSidecarAnnotations } from '../src/annotations/sidecar-annotations.js';
import { ANNOTATIONS } from '../src/annotations/table.js';
import { buildPodPatch } from '../src/patch/build-patch.js';
import { makePod } from './support/pods.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const settings = { sidecarImage: 'svc/svcd:test', sidecarImagePullPolicy: 'IfNotPresent', socketsFolder: '/tmp/svc-components-sockets', componentContainerPolicy: 'restricted' as const };

/**
 * A non-default value for EVERY table annotation, with what else the pod needs for it to matter. The test below
 * fails when a table row is missing here, and when setting a row's annotation does not change the patch (a knob
 * that is parsed but never reaches the pod).
 */
const SAMPLES: Record<string, { value: string; with?: Record<string, string> }> = {
  'svc.io/app-id': { value: 'other-app' },
  'svc.io/app-port': { value: '8080' },
  'svc.io/app-protocol': { value: 'grpc' },
  'svc.io/enable-app-health-check': { value: 'true' },
  'svc.io/app-health-check-path': { value: '/ready' },
  'svc.io/app-health-probe-interval': { value: '2s' },
  'svc.io/app-health-probe-timeout': { value: '250ms' },
  'svc.io/app-health-threshold': { value: '5' },
  'svc.io/config': { value: 'tracing' },
  'svc.io/log-level': { value: 'debug' },
  'svc.io/log-as-json': { value: 'false' },
  'svc.io/enable-metrics': { value: 'false' },
  'svc.io/metrics-port': { value: '9191' },
  'svc.io/http-port': { value: '3600' },
  'svc.io/grpc-port': { value: '50011' },
  'svc.io/internal-grpc-port': { value: '50012' },
  'svc.io/sidecar-listen-address': { value: '127.0.0.1' },
  'svc.io/sidecar-image': { value: 'registry/svcd:9' },
  'svc.io/sidecar-cpu-request': { value: '50m' },
  'svc.io/sidecar-cpu-limit': { value: '1' },
  'svc.io/sidecar-memory-request': { value: '64Mi' },
  'svc.io/sidecar-memory-limit': { value: '1Gi' },
  'svc.io/sidecar-liveness-probe-delay-seconds': { value: '99' },
  'svc.io/sidecar-liveness-probe-timeout-seconds': { value: '9' },
  'svc.io/sidecar-liveness-probe-period-seconds': { value: '19' },
  'svc.io/sidecar-liveness-probe-threshold': { value: '29' },
  'svc.io/sidecar-readiness-probe-delay-seconds': { value: '98' },
  'svc.io/sidecar-readiness-probe-timeout-seconds': { value: '8' },
  'svc.io/sidecar-readiness-probe-period-seconds': { value: '18' },
  'svc.io/sidecar-readiness-probe-threshold': { value: '28' },
  'svc.io/api-token-secret': { value: 'token-secret' },
  'svc.io/env': { value: 'A=1' },
  'svc.io/max-request-size': { value: '16Mi' },
  'svc.io/inject-pluggable-components': { value: 'true' },
  'svc.io/pluggable-components': { value: 'comp' },
  'svc.io/components-sockets-folder': { value: '/sockets', with: { 'svc.io/pluggable-components': 'comp' } },
};

describe('injector annotation table', () => {
  it('has unique svc.io/ keys and unique fields', () => {
    const keys = ANNOTATIONS.map((a) => a.key);
    const fields = ANNOTATIONS.map((a) => a.field);
    expect(new Set(keys).size).to.equal(keys.length);
    expect(new Set(fields).size).to.equal(fields.length);
    for (const k of keys) expect(k).to.match(/^svc\.io\/[a-z0-9-]+$/);
  });

  it('parses every absent annotation to its default', () => {
    const { values, problems } = parseSidecarAnnotations({});
    expect(problems).to.deep.equal([]);
    for (const a of ANNOTATIONS) expect((values as Record<string, unknown>)[a.field]).to.deep.equal(a.default);
  });

  it('every annotation (but svc.io/enabled, read by the filter) changes the patch when set', () => {
    const sampled = ANNOTATIONS.map((a) => a.key).filter((k) => k !== 'svc.io/enabled');
    expect(Object.keys(SAMPLES).sort()).to.deep.equal(sampled.sort());
    const components = [{ metadata: { name: 'store', annotations: { 'svc.io/component-container': '{"name":"store","image":"i"}' } }, scopes: ['myapp'] }];
    const patchFor = (annotations: Record<string, string>) => {
      const pod = makePod({ annotations, containers: [{ name: 'app', image: 'a' }, { name: 'comp', image: 'c' }] });
      const out = buildPodPatch({ pod, components, settings, callerVerified: true });
      expect(out.kind, JSON.stringify(out)).to.equal('patch');
      return JSON.stringify(out);
    };
    for (const [key, sample] of Object.entries(SAMPLES)) {
      const base = patchFor(sample.with ?? {});
      expect(patchFor({ ...sample.with, [key]: sample.value }), `${key} has no effect`).to.not.equal(base);
    }
  });

  it('is documented: docs/kubernetes.md lists every annotation and no other svc.io pod annotation', () => {
    const doc = readFileSync(path.join(REPO, 'docs/kubernetes.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Annotations'), doc.indexOf('\n## ', doc.indexOf('## Annotations') + 5));
    const documented = new Set([...section.matchAll(/^\| `(svc\.io\/[a-z0-9-]+)`/gm)].map((m) => m[1]));
    expect([...documented].sort()).to.deep.equal(ANNOTATIONS.map((a) => a.key).sort());
  });
});
