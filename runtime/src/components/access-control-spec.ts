/**
 * `spec.accessControl` of a Configuration: who may invoke this app's methods (docs/access-control.md). Parsed and
 * validated here, once, at start-up; the decision per call is invocation/access-control.ts.
 */
import { configurationInvalid } from '../errors/catalogue.js';
import { isRecord } from '../util/is-record.js';

export type AccessAction = 'allow' | 'deny';

export interface AccessOperation {
  /** A path pattern with a leading slash: `*` stands for one segment (or part of one), `**` for any number. */
  readonly name: string;
  /** Upper-case HTTP methods, or `['*']` for any. */
  readonly httpVerb: readonly string[];
  readonly action: AccessAction;
}

/** The rules for the calls of one app, identified by its app id, namespace and trust domain together. */
export interface AccessPolicy {
  readonly appId: string;
  /** What the policy's operations do not decide; undefined: the global defaultAction. */
  readonly defaultAction: AccessAction | undefined;
  readonly trustDomain: string;
  readonly namespace: string;
  readonly operations: readonly AccessOperation[];
}

export interface AccessControl {
  /** For callers no policy names, and for the operations of a policy without its own defaultAction. */
  readonly defaultAction: AccessAction;
  readonly trustDomain: string;
  readonly policies: readonly AccessPolicy[];
}

export const DEFAULT_TRUST_DOMAIN = 'public';
export const DEFAULT_NAMESPACE = 'default';
const HTTP_VERBS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

/** Where a field is and where it came from, for every error message. */
interface At {
  readonly source: string;
  readonly field: string;
}

const child = (at: At, name: string | number): At => ({ source: at.source, field: typeof name === 'number' ? `${at.field}[${name}]` : `${at.field}.${name}` });

function list(at: At, v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw configurationInvalid(at.source, at.field, 'must be a list');
  return v;
}

/** An optional string: absent, null or empty take the default (as in the reference system's documents). */
function text(at: At, v: unknown, fallback: string): string {
  if (v === undefined || v === null || v === '') return fallback;
  if (typeof v !== 'string') throw configurationInvalid(at.source, at.field, `must be a string, got ${JSON.stringify(v)}`);
  return v;
}

/** `allow` or `deny`, in any case (the reference system compares them without case). */
function action(at: At, v: unknown): AccessAction {
  const a = typeof v === 'string' ? v.toLowerCase() : v;
  if (a !== 'allow' && a !== 'deny') throw configurationInvalid(at.source, at.field, `must be allow or deny, got ${JSON.stringify(v)}`);
  return a;
}

function verbs(at: At, v: unknown): string[] {
  if (v === undefined || v === null) return ['*'];
  const given = list(at, v);
  if (given.length === 0) throw configurationInvalid(at.source, at.field, "must name at least one HTTP method, or '*'");
  return given.map((verb, i) => {
    const upper = typeof verb === 'string' ? verb.toUpperCase() : '';
    if (upper !== '*' && !HTTP_VERBS.has(upper)) {
      throw configurationInvalid(at.source, child(at, i).field, `must be an HTTP method (${[...HTTP_VERBS].join(', ')}) or '*', got ${JSON.stringify(verb)}`);
    }
    return upper;
  });
}

function operation(at: At, v: unknown): AccessOperation {
  if (!isRecord(v)) throw configurationInvalid(at.source, at.field, 'must be a map with name, httpVerb and action');
  const name = v.name;
  if (typeof name !== 'string' || name.trim() === '') throw configurationInvalid(at.source, child(at, 'name').field, 'is required (a path such as /orders/*)');
  return {
    name: name.startsWith('/') ? name : `/${name}`,
    httpVerb: verbs(child(at, 'httpVerb'), v.httpVerb),
    action: action(child(at, 'action'), v.action),
  };
}

function policy(at: At, v: unknown): AccessPolicy {
  if (!isRecord(v)) throw configurationInvalid(at.source, at.field, 'must be a map with appId, namespace, trustDomain, defaultAction and operations');
  const appId = v.appId;
  if (typeof appId !== 'string' || appId === '') throw configurationInvalid(at.source, child(at, 'appId').field, 'is required (the app id of the calling app)');
  const operations = child(at, 'operations');
  const defaultAction = v.defaultAction === undefined || v.defaultAction === null ? undefined : action(child(at, 'defaultAction'), v.defaultAction);
  return {
    appId,
    defaultAction,
    trustDomain: text(child(at, 'trustDomain'), v.trustDomain, DEFAULT_TRUST_DOMAIN),
    namespace: text(child(at, 'namespace'), v.namespace, DEFAULT_NAMESPACE),
    operations: list(operations, v.operations).map((op, i) => operation(child(operations, i), op)),
  };
}

/** Validates `spec.accessControl`; every error names the source and the field. */
export function parseAccessControl(v: unknown, source: string): AccessControl {
  const at: At = { source, field: 'spec.accessControl' };
  if (!isRecord(v)) throw configurationInvalid(source, at.field, 'must be a map with defaultAction, trustDomain and policies');
  const policiesAt = child(at, 'policies');
  const policies = list(policiesAt, v.policies).map((p, i) => policy(child(policiesAt, i), p));
  // Two policies for one caller would leave the decision to their order: refuse it.
  policies.forEach((p, i) => {
    const first = policies.findIndex((q) => q.appId === p.appId && q.namespace === p.namespace && q.trustDomain === p.trustDomain);
    if (first !== i) {
      throw configurationInvalid(source, child(policiesAt, i).field, `repeats the policy of policies[${first}] (appId '${p.appId}', namespace '${p.namespace}', trustDomain '${p.trustDomain}')`);
    }
  });
  return {
    // Writing an accessControl at all asks for control: what it does not allow is refused unless it says otherwise.
    defaultAction: v.defaultAction === undefined || v.defaultAction === null ? 'deny' : action(child(at, 'defaultAction'), v.defaultAction),
    trustDomain: text(child(at, 'trustDomain'), v.trustDomain, DEFAULT_TRUST_DOMAIN),
    policies,
  };
}
