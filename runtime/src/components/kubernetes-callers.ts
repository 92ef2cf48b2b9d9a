/**
 * Kubernetes mode: which app a calling sidecar belongs to, from the ServiceAccount token it presents. The API
 * server reviews the token (TokenReview, audience `svc.io/invoke`), which names the ServiceAccount and the pod the
 * token is bound to; that pod's `svc.io/app-id` label is the app. Needs `create` on tokenreviews (cluster-wide:
 * the resource has no namespace) and `get` on pods in the caller's namespace. Imported on demand, like the rest
 * of the Kubernetes client.
 */
import { RuntimeError } from '../errors/runtime-error.js';
import { AuthenticationV1Api, CoreV1Api, type KubeConfig } from './kubernetes-client.js';
import { apiStatus, describeFailure } from './kubernetes-loader.js';
import { APP_ID_LABEL } from './name-resolution/kubernetes-resolver.js';

/** The audience of the token the injector projects for svcd: a token for the API server is refused. */
export const INVOKE_AUDIENCE = 'svc.io/invoke';
const POD_NAME_EXTRA = 'authentication.kubernetes.io/pod-name';
const POD_UID_EXTRA = 'authentication.kubernetes.io/pod-uid';
const SERVICE_ACCOUNT_USER = /^system:serviceaccount:([^:]+):([^:]+)$/;

export interface ReviewedCaller {
  readonly appId: string;
  readonly namespace: string;
  readonly serviceAccount: string;
  readonly pod: string;
}

/** The calling app, or why the token proves none (a token the API server did not accept, a pod gone…). */
export type CallerReview = (token: string) => Promise<ReviewedCaller | { readonly refused: string }>;

function apiFailure(what: string, err: unknown, rights: string): RuntimeError {
  const hint = apiStatus(err) === 403 ? `; svcd's service account needs ${rights} (docs/security.md)` : '';
  return new RuntimeError('ERR_KUBERNETES_API', `the called sidecar cannot ${what}: ${describeFailure(err)}${hint}`, { cause: err });
}

/** svcd's `SVC_APP_ID` as the injector wrote it into the pod, if it did. */
function sidecarAppId(pod: { spec?: { containers?: { name?: string; env?: { name?: string; value?: string }[] }[] } }): string | undefined {
  return pod.spec?.containers?.find((c) => c.name === 'svcd')?.env?.find((e) => e.name === 'SVC_APP_ID')?.value;
}

export function apiServerCallerReview(kc: KubeConfig): CallerReview {
  const auth = kc.makeApiClient(AuthenticationV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  return async (token) => {
    let status;
    try {
      const body = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, audiences: [INVOKE_AUDIENCE] } };
      status = (await auth.createTokenReview({ body })).status;
    } catch (err) {
      throw apiFailure("review the caller's token", err, 'create on tokenreviews.authentication.k8s.io');
    }
    if (!status?.authenticated) return { refused: `the API server does not accept its token${status?.error ? ` (${status.error})` : ''}` };
    // An authenticator that ignores audiences answers none: such a token may be meant for anyone.
    if (!status.audiences?.includes(INVOKE_AUDIENCE)) return { refused: `its token is not for audience ${INVOKE_AUDIENCE}` };
    const user = SERVICE_ACCOUNT_USER.exec(status.user?.username ?? '');
    const podName = status.user?.extra?.[POD_NAME_EXTRA]?.[0];
    if (!user || !podName) return { refused: `its token is not a pod's ServiceAccount token (user ${status.user?.username ?? 'unknown'})` };
    const [, namespace = '', serviceAccount = ''] = user;
    let pod;
    try {
      pod = await core.readNamespacedPod({ namespace, name: podName });
    } catch (err) {
      if (apiStatus(err) === 404) return { refused: `its pod ${namespace}/${podName} no longer exists` };
      throw apiFailure(`get the caller's pod ${namespace}/${podName}`, err, `get on pods in namespace ${namespace}`);
    }
    // A pod of the same name made after the token's own was deleted is not the token's pod.
    if (pod.metadata?.uid !== status.user?.extra?.[POD_UID_EXTRA]?.[0]) return { refused: `its pod ${namespace}/${podName} is not the one its token was issued for` };
    const appId = pod.metadata?.labels?.[APP_ID_LABEL];
    if (!appId) return { refused: `its pod ${namespace}/${podName} has no ${APP_ID_LABEL} label (not injected)` };
    // Labels can be changed after creation, a container's env cannot: the label must still say what svcd runs as.
    const running = sidecarAppId(pod);
    if (running !== undefined && running !== appId) return { refused: `its pod ${namespace}/${podName} is labelled ${APP_ID_LABEL}=${appId} but its svcd runs as ${running}` };
    return { appId, namespace, serviceAccount, pod: podName };
  };
}
