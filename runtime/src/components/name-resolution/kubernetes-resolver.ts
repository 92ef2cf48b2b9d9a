import type { Logger } from '../../log/logger.js';
import type { NameResolver } from '../contracts/name-resolution.js';
import { ListWatch, type ListWatchSource } from './list-watch.js';

/** The label the injector puts on every injected pod: the pod's app id. */
export const APP_ID_LABEL = 'svc.io/app-id';
/** The pod annotation that moves svcd's internal port; the injector's default is the port's default. */
const INTERNAL_PORT_ANNOTATION = 'svc.io/internal-grpc-port';
const DEFAULT_INTERNAL_PORT = 50002;

/** What the resolver reads of a pod (list items and watch events alike). */
export interface PodView {
  readonly metadata?: {
    readonly uid?: string;
    readonly resourceVersion?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly deletionTimestamp?: unknown;
  };
  readonly status?: {
    readonly podIP?: string;
    readonly conditions?: readonly { readonly type?: string; readonly status?: string }[];
  };
}

/** The pods labelled `svc.io/app-id` of one namespace, listed and watched. */
export type PodSources = (namespace: string) => ListWatchSource<PodView>;

/** What is kept of a pod: its app id, and its sidecar's address while it may take calls. */
interface Sidecar {
  readonly appId: string;
  readonly address: string | undefined;
}

export interface KubernetesResolverOptions {
  /** Connects to the API server on first use (the Kubernetes client is loaded on demand). */
  readonly connect: () => Promise<PodSources>;
  readonly log: Logger;
}

/** `host:port`, bracketing an IPv6 host. */
function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

function internalPort(annotations: Readonly<Record<string, string>> | undefined): number {
  const port = Number(annotations?.[INTERNAL_PORT_ANNOTATION]);
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : DEFAULT_INTERNAL_PORT;
}

/**
 * A pod takes calls while it is Ready and not being deleted: a terminating pod stays Ready until its containers
 * stop, and calls sent to it then would race its shutdown.
 */
export function sidecarOf(pod: PodView): Sidecar {
  const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  const ip = pod.status?.podIP;
  const live = ready && !pod.metadata?.deletionTimestamp && ip;
  return { appId: pod.metadata?.labels?.[APP_ID_LABEL] ?? '', address: live ? hostPort(ip, internalPort(pod.metadata?.annotations)) : undefined };
}

/**
 * Kubernetes mode's name resolution: an app id resolves to the Ready pods labelled `svc.io/app-id=<app id>` in the
 * namespace (the injector's label is the registration, so `register` does nothing). One list+watch per namespace,
 * started by the first resolve there and kept current by the API server's events: no polling, and resolution
 * answers from memory. Needs get/list/watch on pods in each namespace resolved (its own, through the chart's
 * RoleBinding; others only with the cross-namespace ClusterRole, docs/security.md).
 */
export class KubernetesResolver implements NameResolver {
  readonly kind = 'kubernetes';
  readonly #namespaces = new Map<string, ListWatch<PodView, Sidecar>>();
  #sources: Promise<PodSources> | undefined;

  constructor(private readonly o: KubernetesResolverOptions) {}

  register(): Promise<void> {
    return Promise.resolve();
  }

  async resolve(appId: string, namespace: string): Promise<readonly string[]> {
    const pods = await this.#informer(namespace);
    await pods.ready();
    const addresses: string[] = [];
    for (const sidecar of pods.values()) if (sidecar.appId === appId && sidecar.address !== undefined) addresses.push(sidecar.address);
    return addresses;
  }

  sharedSecret(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  close(): Promise<void> {
    for (const pods of this.#namespaces.values()) pods.stop();
    this.#namespaces.clear();
    return Promise.resolve();
  }

  async #informer(namespace: string): Promise<ListWatch<PodView, Sidecar>> {
    const known = this.#namespaces.get(namespace);
    if (known) return known;
    this.#sources ??= this.o.connect();
    const source = (await this.#sources)(namespace);
    // Another resolve may have started it while the client loaded.
    const raced = this.#namespaces.get(namespace);
    if (raced) return raced;
    const log = this.o.log.child({ scope: 'name-resolution', namespace });
    const pods = new ListWatch<PodView, Sidecar>(source, {
      key: (pod) => pod.metadata?.uid,
      project: sidecarOf,
      resourceVersion: (pod) => pod.metadata?.resourceVersion,
      onProblem: (problem, retryInMs) => log.warn({ problem, retryInMs }, 'pods of the namespace are not watched; retrying'),
    });
    this.#namespaces.set(namespace, pods);
    return pods;
  }
}
