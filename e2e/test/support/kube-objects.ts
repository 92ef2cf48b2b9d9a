/** Builders of the plain Kubernetes objects the e2e tests create: namespaces, service accounts, Components, Subscriptions, Configurations. */
import type { KubeObject } from './kube-client.js';

export function namespaceObject(name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
}

export function serviceAccountObject(namespace: string, name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace, name } };
}

export interface ComponentObjectOptions {
  readonly scopes?: readonly string[];
  readonly annotations?: Record<string, string>;
  /** Replaces the default spec (a state.in-memory v1 component). */
  readonly spec?: Record<string, unknown>;
}

export function componentObject(namespace: string, name: string, opts: ComponentObjectOptions = {}): KubeObject {
  return {
    apiVersion: 'svc.io/v1alpha1',
    kind: 'Component',
    metadata: { namespace, name, annotations: opts.annotations ?? {} },
    spec: opts.spec ?? { type: 'state.in-memory', version: 'v1' },
    ...(opts.scopes ? { scopes: [...opts.scopes] } : {}),
  };
}

export function subscriptionObject(namespace: string, name: string, opts: { scopes?: readonly string[]; spec: Record<string, unknown> }): KubeObject {
  return {
    apiVersion: 'svc.io/v2alpha1',
    kind: 'Subscription',
    metadata: { namespace, name },
    spec: opts.spec,
    ...(opts.scopes ? { scopes: [...opts.scopes] } : {}),
  };
}

export function configurationObject(namespace: string, name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'svc.io/v1alpha1', kind: 'Configuration', metadata: { namespace, name }, spec };
}

export function resiliencyObject(namespace: string, name: string, scopes: readonly string[], spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'svc.io/v1alpha1', kind: 'Resiliency', metadata: { namespace, name }, scopes: [...scopes], spec };
}
