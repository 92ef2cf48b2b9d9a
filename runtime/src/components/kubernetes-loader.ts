/**
 * Kubernetes mode: the Components of this pod's namespace, read from the API server (in-cluster service account,
 * or a kubeconfig for tests), parsed and filtered exactly like the disk loader's (same parser, same namespace /
 * duplicate / scope rules). Needs only get/list on components.svc.io in that namespace. The same client reads the
 * other svc.io resources (Subscriptions, the Configuration).
 */
import { existsSync } from 'node:fs';
import { ApiException, CustomObjectsApi, KubeConfig } from './kubernetes-client.js';
import { RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { selectComponents } from './select.js';
import { isComponentDocument, parseComponentSpec, type ComponentSpec } from './spec.js';

/** Lists the raw objects of one svc.io resource (Components, Subscriptions) in a namespace. */
export interface SvcObjectLister {
  list(namespace: string): Promise<unknown[]>;
}

/** Reads one raw object of an svc.io resource (the Configuration) by name. */
export interface SvcObjectGetter {
  get(namespace: string, name: string): Promise<unknown>;
}

/** An svc.io custom resource svcd reads. */
export interface SvcResource {
  readonly plural: string;
  readonly version: string;
}

export const COMPONENTS: SvcResource = { plural: 'components', version: 'v1alpha1' };

const IN_CLUSTER_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';
const ATTEMPTS = 5;

/** The fields of a Kubernetes `Status` failure body that say what went wrong. */
interface StatusBody {
  reason?: string;
  message?: string;
}

function statusBody(body: unknown): StatusBody {
  if (typeof body !== 'string') return typeof body === 'object' && body !== null ? body : {};
  try {
    return JSON.parse(body) as StatusBody;
  } catch {
    return {};
  }
}

/**
 * One line for a failed request: "403 Forbidden: <the API server's message>" for an answer, the transport error
 * otherwise. client-node's own message is a multi-line dump of the status, body and headers.
 */
export function describeFailure(err: unknown): string {
  if (!(err instanceof ApiException)) return (err as Error).message;
  const { code, body } = err as ApiException<unknown>;
  const status = statusBody(body);
  const reason = status.reason ?? (code === 401 ? 'Unauthorized' : 'Failure');
  return status.message ? `${code} ${reason}: ${status.message}` : `${code} ${reason}`;
}

/** The HTTP status of a failed list (404: the resource's CRD is not installed), if the API server answered. */
export function apiStatus(err: unknown): number | undefined {
  const cause = err instanceof RuntimeError ? err.cause : err;
  return cause instanceof ApiException ? (cause as ApiException<unknown>).code : undefined;
}

/** One request to the API server, for its messages: `list components.svc.io`, `get configurations.svc.io appconfig`. */
interface ApiRequest {
  readonly verb: 'list' | 'get';
  readonly resource: SvcResource;
  readonly namespace: string;
  readonly name?: string;
}

/** Retries what may be transient (the API server restarting, a network blip); a 4xx is final. */
async function withRetries<T>(request: ApiRequest, log: Pick<Logger, 'warn'> | undefined, call: () => Promise<T>): Promise<T> {
  const what = `${request.resource.plural}.svc.io`;
  const target = request.name === undefined ? what : `${what} ${request.name}`;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const status = apiStatus(err);
      const problem = describeFailure(err);
      if ((status !== undefined && status >= 400 && status < 500) || attempt >= ATTEMPTS) {
        const rights = request.verb === 'list' ? 'get/list' : 'get';
        const hint = status === 403 ? `; the pod service account needs ${rights} on ${what} in its namespace` : '';
        throw new RuntimeError('ERR_KUBERNETES_API', `cannot ${request.verb} ${target} in namespace ${request.namespace}: ${problem}${hint}`, { cause: err });
      }
      const delayMs = 250 * 2 ** attempt;
      log?.warn({ namespace: request.namespace, attempt, delayMs, problem }, `cannot ${request.verb} ${target} yet; retrying`);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

/** Reads the objects of one svc.io resource: lists them (Components, Subscriptions) or gets one (the Configuration). */
export class ApiServerObjectLister implements SvcObjectLister, SvcObjectGetter {
  private readonly api: CustomObjectsApi;

  /** `log` hears about each retry (svcd passes its logger; an operator sees why start-up waits). */
  constructor(
    kc: KubeConfig,
    private readonly log?: Pick<Logger, 'warn'>,
    private readonly resource: SvcResource = COMPONENTS,
  ) {
    this.api = kc.makeApiClient(CustomObjectsApi);
  }

  async list(namespace: string): Promise<unknown[]> {
    const { plural, version } = this.resource;
    const list = await withRetries<unknown>({ verb: 'list', resource: this.resource, namespace }, this.log, () =>
      this.api.listNamespacedCustomObject({ group: 'svc.io', version, namespace, plural }),
    );
    return (list as { items?: unknown[] }).items ?? [];
  }

  async get(namespace: string, name: string): Promise<unknown> {
    const { plural, version } = this.resource;
    return withRetries<unknown>({ verb: 'get', resource: this.resource, namespace, name }, this.log, () =>
      this.api.getNamespacedCustomObject({ group: 'svc.io', version, namespace, plural, name }),
    );
  }
}

export function kubernetesConfig(kubeconfigPath: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  if (kubeconfigPath) kc.loadFromFile(kubeconfigPath);
  else if (process.env.KUBERNETES_SERVICE_HOST && existsSync(IN_CLUSTER_TOKEN)) kc.loadFromCluster();
  else throw new RuntimeError('ERR_CONFIG_INVALID', '--mode kubernetes needs the in-cluster service account or --kubeconfig / KUBECONFIG');
  return kc;
}

export async function loadKubernetesComponents(opts: {
  appId: string;
  namespace: string | undefined;
  log: Logger;
  lister: SvcObjectLister;
}): Promise<ComponentSpec[]> {
  if (!opts.namespace) throw new RuntimeError('ERR_CONFIG_INVALID', '--mode kubernetes needs --namespace / NAMESPACE (the injector sets it from the downward API)');
  const objects = await opts.lister.list(opts.namespace);
  const specs: ComponentSpec[] = [];
  for (const obj of objects) {
    // List items carry apiVersion and kind; add them when a server leaves them out.
    const doc = { apiVersion: 'svc.io/v1alpha1', kind: 'Component', ...(obj as object) };
    if (!isComponentDocument(doc)) continue;
    const name = (doc as { metadata?: { name?: string } }).metadata?.name ?? '(unnamed)';
    specs.push(parseComponentSpec(doc, `kubernetes: ${opts.namespace}/${name}`));
  }
  opts.log.info({ namespace: opts.namespace, listed: specs.length }, 'components read from the Kubernetes API');
  return selectComponents(specs, { appId: opts.appId, namespace: opts.namespace, log: opts.log });
}
