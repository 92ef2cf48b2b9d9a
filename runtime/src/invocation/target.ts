import { malformedRequest } from '../errors/catalogue.js';

/** An app as invocation names it. */
export interface AppRef {
  readonly appId: string;
  readonly namespace: string;
}

/** App ids as Kubernetes names them (RFC 1123 labels, also `_`): nothing that could steer a path or a key. */
const APP_ID = /^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?$/;

/** `<app-id>` (the caller's namespace) or `<app-id>.<namespace>`. */
export function parseTarget(raw: string, callerNamespace: string): AppRef {
  const dot = raw.lastIndexOf('.');
  const [appId, namespace] = dot < 0 ? [raw, callerNamespace] : [raw.slice(0, dot), raw.slice(dot + 1)];
  if (!APP_ID.test(appId)) throw malformedRequest(`invalid app id '${raw.slice(0, 100)}': letters, digits, '-' and '_', at most 63, as '<app-id>' or '<app-id>.<namespace>'`);
  if (!APP_ID.test(namespace)) throw malformedRequest(`invalid namespace in '${raw.slice(0, 100)}'`);
  return { appId, namespace };
}

export function sameApp(a: AppRef, b: AppRef): boolean {
  return a.appId === b.appId && a.namespace === b.namespace;
}
