import { installCrds, renderChart } from './chart.js';
import { KubeApiServer } from './kube-apiserver.js';
import type { KubeCredentials } from './kube-client.js';
import { namespaceObject, serviceAccountObject } from './kube-objects.js';

/** A real kube-apiserver with the chart's CRDs and svcd's reader RBAC for one app's service account. */
export interface ChartReaders {
  readonly kube: KubeApiServer;
  /** `<namespace>:<appId>`, bound by the chart's componentReaders RoleBinding. */
  readonly reader: KubeCredentials;
  /** `<namespace>:default`, with no RoleBinding. */
  readonly unbound: KubeCredentials;
}

export async function startWithChartReaders(namespace: string, appId: string): Promise<ChartReaders> {
  const kube = await KubeApiServer.start();
  const chart = renderChart({ release: 'svc', namespace: 'svc-system', values: { 'sidecar.componentReaders': [{ namespace, serviceAccount: appId }] } });
  await installCrds(kube.admin, chart);
  await kube.admin.apply(namespaceObject(namespace));
  for (const obj of chart.filter((o) => o.metadata.name?.includes('-components-reader'))) await kube.admin.apply(obj);
  for (const name of [appId, 'default']) await kube.admin.apply(serviceAccountObject(namespace, name));
  return { kube, reader: await kube.serviceAccountToken(namespace, appId), unbound: await kube.serviceAccountToken(namespace, 'default') };
}
