/**
 * The Helm chart, rendered and linted by the real helm binary (scripts/ensure-tools.sh installs it): the objects
 * it renders are valid Kubernetes objects wired to each other, and every value of values.yaml reaches the output.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import * as yaml from 'js-yaml';
import { CustomResourceDefinition } from 'kubernetes-models/apiextensions.k8s.io/v1/CustomResourceDefinition';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { MutatingWebhookConfiguration } from 'kubernetes-models/admissionregistration.k8s.io/v1/MutatingWebhookConfiguration';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { Service } from 'kubernetes-models/v1/Service';
import { parseInjectorCommandLine } from '../src/config/options.js';
import { CHART_DIR as CHART, helmBinary } from './support/helm.js';

type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; [k: string]: unknown };

function helm(args: string[]): { status: number; stdout: string; stderr: string } {
  const res = spawnSync(helmBinary(), args, { encoding: 'utf8' });
  return { status: res.status ?? -1, stdout: res.stdout, stderr: res.stderr };
}

/** `helm` with `values` in a temporary values file (`--values` is appended), which is removed afterwards. */
function helmWithValues(args: string[], values: object | undefined): { status: number; stdout: string; stderr: string } {
  if (values === undefined) return helm(args);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-chart-'));
  try {
    const file = path.join(dir, 'values.yaml');
    writeFileSync(file, yaml.dump(values));
    return helm([...args, '--values', file]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function render(valuesOverride?: object): string {
  const res = helmWithValues(['template', 'svc', CHART, '--namespace', 'svc-system', '--include-crds'], valuesOverride);
  expect(res.status, res.stderr).to.equal(0);
  return res.stdout;
}

function objects(text: string): K8sObject[] {
  return (yaml.loadAll(text) as Array<K8sObject | null>).filter((d): d is K8sObject => d !== null);
}

function find(objs: K8sObject[], kind: string, name?: string): K8sObject {
  const found = objs.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  expect(found, `${kind} ${name ?? ''}`).to.not.equal(undefined);
  return found!;
}

/** A value different from the default, for EVERY leaf of values.yaml (the test fails when a leaf is missing). */
const SAMPLES: Record<string, unknown> = {
  imageRegistry: 'registry.example:5000/team',
  'injector.replicaCount': 3,
  'injector.image.repository': 'registry.example/svc-injector',
  'injector.image.tag': '9.9.9',
  'injector.image.pullPolicy': 'Always',
  'injector.port': 4443,
  'injector.logLevel': 'debug',
  'injector.allowedServiceAccounts': ['ci:deployer-*'],
  'injector.allowedGroups': ['platform-admins'],
  'injector.componentContainerPolicy': 'baseline',
  'injector.clientCA': '-----BEGIN CERTIFICATE-----test-----END CERTIFICATE-----',
  'injector.networkPolicy.enabled': false,
  'injector.networkPolicy.from': [{ ipBlock: { cidr: '10.0.0.10/32' } }],
  'injector.tlsSecretName': 'custom-tls',
  'injector.resources.requests.cpu': '77m',
  'injector.resources.requests.memory': '77Mi',
  'injector.resources.limits.memory': '777Mi',
  'injector.podDisruptionBudget.minAvailable': 2,
  'injector.runAsUser': 4321,
  'injector.nodeSelector': { 'kubernetes.io/os': 'linux' },
  'injector.tolerations': [{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }],
  'injector.priorityClassName': 'system-cluster-critical',
  'sidecar.image.repository': 'registry.example/svcd',
  'sidecar.image.tag': '8.8.8',
  'sidecar.pullPolicy': 'Always',
  'sidecar.componentsSocketsFolder': '/var/run/sockets',
  'sidecar.componentReaders': [{ namespace: 'shop', serviceAccount: 'orders' }],
  'webhook.failurePolicy': 'Ignore',
  'webhook.timeoutSeconds': 7,
  'webhook.namespaceSelector.matchLabels.svc.io/injection': 'on',
  'webhook.reinvocationPolicy': 'Never',
};

function leaves(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0) {
    return Object.entries(value).flatMap(([k, v]) => leaves(v, [...prefix, k]));
  }
  return [prefix];
}

function nested(pathKeys: string[], value: unknown): object {
  return pathKeys.reduceRight<unknown>((acc, key) => ({ [key]: acc }), value) as object;
}

describe('Helm chart charts/svc', function () {
  this.timeout(120_000);

  it('passes helm lint --strict', () => {
    const res = helm(['lint', '--strict', CHART]);
    expect(res.status, res.stdout + res.stderr).to.equal(0);
  });

  it('renders valid, consistently wired objects', () => {
    const objs = objects(render());
    const crd = find(objs, 'CustomResourceDefinition', 'components.svc.io');
    new CustomResourceDefinition(crd as never).validate();
    new CustomResourceDefinition(find(objs, 'CustomResourceDefinition', 'configurations.svc.io') as never).validate();
    const spec = (crd as unknown as { spec: { group: string; versions: Array<{ name: string; schema: { openAPIV3Schema: { properties: Record<string, unknown> } } }> } }).spec;
    expect(spec.group).to.equal('svc.io');
    expect(spec.versions[0]?.name).to.equal('v1alpha1');
    expect(Object.keys(spec.versions[0]!.schema.openAPIV3Schema.properties)).to.include.members(['spec', 'scopes', 'metadata']);

    const deployment = find(objs, 'Deployment', 'svc-injector') as unknown as Deployment;
    new Deployment(deployment).validate();
    expect(deployment.spec?.replicas).to.equal(2);
    const pod = deployment.spec!.template.spec!;
    const c = pod.containers[0]!;
    expect(pod.securityContext?.runAsNonRoot).to.equal(true);
    expect(c.securityContext).to.include({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(c.readinessProbe?.httpGet).to.deep.include({ path: '/healthz', scheme: 'HTTPS' });
    expect(c.livenessProbe?.httpGet).to.deep.include({ path: '/healthz', scheme: 'HTTPS' });
    expect(c.args).to.include.members(['--tls-secret=svc-injector-tls', '--webhook-config=svc-injector', '--service-name=svc-injector']);

    const service = find(objs, 'Service', 'svc-injector') as unknown as Service;
    new Service(service).validate();
    expect(service.spec?.selector).to.deep.equal(deployment.spec?.selector.matchLabels);

    const pdb = find(objs, 'PodDisruptionBudget', 'svc-injector') as unknown as PodDisruptionBudget;
    new PodDisruptionBudget(pdb).validate();
    expect(pdb.spec?.selector?.matchLabels).to.deep.equal(deployment.spec?.selector.matchLabels);

    const webhook = find(objs, 'MutatingWebhookConfiguration', 'svc-injector') as unknown as MutatingWebhookConfiguration;
    new MutatingWebhookConfiguration(webhook).validate();
    const hook = webhook.webhooks![0]!;
    expect(hook.sideEffects).to.equal('None');
    expect(hook.failurePolicy).to.equal('Fail');
    expect(hook.rules).to.deep.equal([{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], operations: ['CREATE'], scope: 'Namespaced' }]);
    expect(hook.namespaceSelector).to.deep.equal({ matchLabels: { 'svc.io/injection': 'enabled' } });
    expect(hook.clientConfig.service).to.deep.equal({ name: 'svc-injector', namespace: 'svc-system', path: '/mutate', port: 443 });
    expect(hook.clientConfig).to.not.have.property('caBundle');

    const injectorRole = find(objs, 'ClusterRole', 'svc-injector') as unknown as { rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }> };
    expect(injectorRole.rules).to.deep.include({ apiGroups: ['svc.io'], resources: ['components'], verbs: ['get', 'list'] });
    expect(injectorRole.rules).to.deep.include({ apiGroups: ['admissionregistration.k8s.io'], resources: ['mutatingwebhookconfigurations'], resourceNames: ['svc-injector'], verbs: ['get', 'patch'] });
    const reader = find(objs, 'ClusterRole', 'svc-components-reader') as unknown as { rules: unknown[] };
    expect(reader.rules).to.deep.equal([
      { apiGroups: ['svc.io'], resources: ['components', 'subscriptions', 'resiliencies'], verbs: ['get', 'list'] },
      { apiGroups: ['svc.io'], resources: ['configurations'], verbs: ['get'] },
      // The namespace's Secrets: the default kubernetes secret store and Components' secretKeyRef.
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] },
    ]);
    const secretRole = find(objs, 'Role', 'svc-injector') as unknown as { rules: Array<{ verbs: string[]; resourceNames?: string[] }> };
    expect(secretRole.rules.find((r) => r.verbs.includes('update'))?.resourceNames).to.deep.equal(['svc-injector-tls']);
  });

  it('names no CRD category or short name that kubectl already resolves to a built-in resource', () => {
    // Found in the local cluster: the category `svc` made `kubectl get svc` list Components and Subscriptions
    // instead of Services in every cluster the chart was installed in.
    const builtIn = ['all', 'svc', 'po', 'no', 'ns', 'cm', 'ep', 'ev', 'sa', 'pv', 'pvc', 'rc', 'rs', 'ds', 'sts', 'deploy', 'hpa', 'ing', 'netpol', 'pdb', 'cj', 'crd', 'sc', 'csr', 'limits', 'quota', 'pc'];
    const crds = objects(render()).filter((o) => o.kind === 'CustomResourceDefinition');
    expect(crds.map((o) => o.metadata.name)).to.have.members(['components.svc.io', 'configurations.svc.io', 'resiliencies.svc.io', 'subscriptions.svc.io']);
    for (const crd of crds) {
      const names = (crd as unknown as { spec: { names: { categories?: string[]; shortNames?: string[] } } }).spec.names;
      for (const name of [...(names.categories ?? []), ...(names.shortNames ?? [])]) {
        expect(builtIn, `${crd.metadata.name}: ${name}`).to.not.include(name);
      }
    }
  });

  it('wires the client CA into the injector and admits only the webhook port from the given peers', () => {
    const ca = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const objs = objects(render({ injector: { clientCA: ca, networkPolicy: { from: [{ ipBlock: { cidr: '10.0.0.10/32' } }] } } }));
    const configMap = find(objs, 'ConfigMap', 'svc-injector-client-ca') as unknown as { data: Record<string, string> };
    expect(configMap.data['ca.crt']).to.equal(ca);
    const pod = (find(objs, 'Deployment', 'svc-injector') as unknown as Deployment).spec!.template.spec!;
    const c = pod.containers[0]!;
    const caFile = c.env?.find((e) => e.name === 'SVC_INJECTOR_CLIENT_CA_FILE')?.value;
    const mount = c.volumeMounts?.find((m) => m.name === 'client-ca');
    expect(caFile).to.equal(`${mount?.mountPath}/ca.crt`);
    expect(pod.volumes?.find((v) => v.name === 'client-ca')?.configMap?.name).to.equal('svc-injector-client-ca');
    const policy = find(objs, 'NetworkPolicy', 'svc-injector') as unknown as { spec: { podSelector: { matchLabels: object }; ingress: { ports: object[]; from: object[] }[] } };
    expect(policy.spec.podSelector.matchLabels).to.deep.equal((find(objs, 'Deployment', 'svc-injector') as unknown as Deployment).spec?.selector.matchLabels);
    expect(policy.spec.ingress).to.deep.equal([{ ports: [{ protocol: 'TCP', port: 4000 }], from: [{ ipBlock: { cidr: '10.0.0.10/32' } }] }]);
    // Off by default: no client CA objects; the policy is there without a source list.
    const defaults = objects(render());
    expect(defaults.some((o) => o.kind === 'ConfigMap')).to.equal(false);
    expect((find(defaults, 'NetworkPolicy', 'svc-injector') as unknown as { spec: { ingress: object[] } }).spec.ingress).to.deep.equal([{ ports: [{ protocol: 'TCP', port: 4000 }] }]);
  });

  it('the injector binary accepts the args and env the chart gives it', () => {
    const objs = objects(render({ injector: { allowedServiceAccounts: ['ci:deployer-*'] } }));
    const c = (find(objs, 'Deployment', 'svc-injector') as unknown as Deployment).spec!.template.spec!.containers[0]!;
    const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value ?? (e.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace' ? 'svc-system' : '')]));
    const parsed = parseInjectorCommandLine(c.args ?? [], env);
    expect(parsed.kind).to.equal('run');
    if (parsed.kind !== 'run') return;
    expect(parsed.config).to.deep.include({
      port: 4000,
      tlsSecret: 'svc-injector-tls',
      webhookConfig: 'svc-injector',
      serviceName: 'svc-injector',
      namespace: 'svc-system',
      sidecarImage: 'svc/svcd:0.1.0',
      sidecarImagePullPolicy: 'IfNotPresent',
      componentsSocketsFolder: '/tmp/svc-components-sockets',
      logLevel: 'info',
    });
    expect(parsed.config.allowedServiceAccounts).to.deep.equal(['ci:deployer-*']);
    expect(parsed.config.allowedGroups).to.deep.equal(['system:masters']);
    expect(c.ports?.[0]?.containerPort).to.equal(parsed.config.port);

    // An empty list in values clears the binary's default too.
    const cleared = (find(objects(render({ injector: { allowedGroups: [] } })), 'Deployment', 'svc-injector') as unknown as Deployment).spec!.template.spec!.containers[0]!;
    const clearedEnv = Object.fromEntries((cleared.env ?? []).map((e) => [e.name, e.value ?? 'svc-system']));
    const reparsed = parseInjectorCommandLine(cleared.args ?? [], clearedEnv);
    expect(reparsed.kind === 'run' && reparsed.config.allowedGroups).to.deep.equal([]);
  });

  it('rejects values outside values.schema.json', () => {
    for (const bad of [{ webhook: { failurePolicy: 'Sometimes' } }, { injector: { replicaCount: 0 } }, { injector: { componentContainerPolicy: 'anything-goes' } }, { unknownKey: true }]) {
      expect(helmWithValues(['template', 'svc', CHART], bad).status, JSON.stringify(bad)).to.not.equal(0);
    }
  });

  it('every value in values.yaml changes the rendered output', () => {
    const values = yaml.load(readFileSync(path.join(CHART, 'values.yaml'), 'utf8'));
    const paths = leaves(values);
    expect(Object.keys(SAMPLES).sort()).to.deep.equal(paths.map((p) => p.join('.')).sort());
    const baseline = render();
    for (const p of paths) {
      const sample = SAMPLES[p.join('.')];
      const out = render(nested(p, sample));
      expect(out, `${p.join('.')} has no effect`).to.not.equal(baseline);
      if (typeof sample === 'string' || typeof sample === 'number') expect(out, `${p.join('.')} value not rendered`).to.contain(String(sample));
    }
  });
});
