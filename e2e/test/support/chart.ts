/**
 * The svc Helm chart as the real helm binary renders it (scripts/ensure-tools.sh installs helm), parsed into
 * objects, so that e2e tests apply exactly what `helm install` would.
 */
import { spawnSync } from 'node:child_process';
import { CHART_DIR, helmBinary } from '@svc/injector/test-support';
import * as yaml from 'js-yaml';
import type { KubeClient, KubeObject } from './kube-client.js';

export function parseYamlObjects(text: string): KubeObject[] {
  return (yaml.loadAll(text) as Array<KubeObject | null>).filter((d): d is KubeObject => d !== null);
}

/** `helm template` of the chart (CRDs included) with `values` given as --set-json; the objects it renders. */
export function renderChart(opts: { release: string; namespace: string; values?: Record<string, unknown> }): KubeObject[] {
  const args = ['template', opts.release, CHART_DIR, '--namespace', opts.namespace, '--include-crds'];
  for (const [key, value] of Object.entries(opts.values ?? {})) args.push('--set-json', `${key}=${JSON.stringify(value)}`);
  const res = spawnSync(helmBinary(), args, { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`helm ${args.join(' ')} failed: ${res.stderr}`);
  return parseYamlObjects(res.stdout);
}

export function findObject(objects: readonly KubeObject[], kind: string, name?: string): KubeObject {
  const found = objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (!found) throw new Error(`the chart rendered no ${kind}${name ? ` named ${name}` : ''}`);
  return found;
}

function established(crd: KubeObject): boolean {
  const conditions = (crd.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === 'Established' && c.status === 'True');
}

/** What `helm install` does first: creates the chart's CRDs and waits (watching) until each is Established. */
export async function installCrds(client: KubeClient, objects: readonly KubeObject[]): Promise<void> {
  for (const crd of objects.filter((o) => o.kind === 'CustomResourceDefinition')) {
    await client.apply(crd);
    await client.waitFor('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', `metadata.name=${crd.metadata.name}`, established, 30_000);
  }
}
