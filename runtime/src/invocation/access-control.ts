/**
 * Whether a caller may invoke an operation of this app: the Configuration's `accessControl`, applied with the
 * reference system's semantics (docs/access-control.md). Pure: who the caller is was established before (by its
 * credentials, never by headers its app set), and what to do with a refusal is the transport's.
 */
import type { AccessAction, AccessControl, AccessOperation } from '../components/access-control-spec.js';
import { compareSpecificity, compilePattern, normalizePath, type PathPattern } from './operation-path.js';

/** The authenticated identity of the calling app's sidecar. */
export interface Caller {
  readonly appId: string;
  readonly namespace: string;
  readonly trustDomain: string;
}

export interface InvokedOperation {
  /** The HTTP method; '' for a gRPC invocation, which has none: every operation's `httpVerb` then matches. */
  readonly verb: string;
  /** The method path as the caller sent it (normalised here). */
  readonly path: string;
}

export interface AccessDecision {
  readonly allowed: boolean;
  /** Which rule decided, for the log line and the error message. */
  readonly reason: string;
}

/** Patterns compiled once per operation of a loaded policy, not on every call. */
const patterns = new WeakMap<AccessOperation, PathPattern>();

function patternOf(op: AccessOperation): PathPattern {
  let pattern = patterns.get(op);
  if (pattern === undefined) patterns.set(op, (pattern = compilePattern(op.name)));
  return pattern;
}

const verbMatches = (op: AccessOperation, verb: string): boolean => verb === '' || op.httpVerb.includes('*') || op.httpVerb.includes(verb.toUpperCase());
const namesVerbs = (op: AccessOperation): boolean => !op.httpVerb.includes('*');

/** The more specific path wins; on a tie, named verbs beat `*`, then deny beats allow (the safer reading). */
function outranks(a: AccessOperation, b: AccessOperation): boolean {
  const bySegments = compareSpecificity(patternOf(a).specificity, patternOf(b).specificity);
  if (bySegments !== 0) return bySegments > 0;
  if (namesVerbs(a) !== namesVerbs(b)) return namesVerbs(a);
  return a.action === 'deny' && b.action === 'allow';
}

function mostSpecific(operations: readonly AccessOperation[], verb: string, path: string): AccessOperation | undefined {
  let best: AccessOperation | undefined;
  for (const op of operations) {
    if (verbMatches(op, verb) && patternOf(op).matches(path) && (best === undefined || outranks(op, best))) best = op;
  }
  return best;
}

const decided = (action: AccessAction, rule: string): AccessDecision => ({ allowed: action === 'allow', reason: `${action === 'allow' ? 'allowed' : 'denied'} by ${rule}` });

/**
 * No policy: allowed. A caller no policy names (app id, namespace and trust domain all equal): the global
 * defaultAction. Otherwise the most specific of the policy's operations matching the path and verb decides; when
 * none matches, the policy's defaultAction, or the global one when the policy has none.
 */
export function accessDecision(policy: AccessControl | undefined, caller: Caller, operation: InvokedOperation): AccessDecision {
  if (policy === undefined) return { allowed: true, reason: 'allowed: no access control policy' };
  const who = `app '${caller.appId}' (namespace '${caller.namespace}', trust domain '${caller.trustDomain}')`;
  const rules = policy.policies.find((p) => p.appId === caller.appId && p.namespace === caller.namespace && p.trustDomain === caller.trustDomain);
  if (rules === undefined) return decided(policy.defaultAction, `the global defaultAction: no policy for ${who}`);

  const path = normalizePath(operation.path);
  const call = `${operation.verb === '' ? 'gRPC' : operation.verb.toUpperCase()} ${path}`;
  const op = mostSpecific(rules.operations, operation.verb, path);
  if (op !== undefined) return decided(op.action, `operation '${op.name}' [${op.httpVerb.join(', ')}] of the policy for ${who}, matching ${call}`);
  if (rules.defaultAction !== undefined) return decided(rules.defaultAction, `the defaultAction of the policy for ${who}: no operation matches ${call}`);
  return decided(policy.defaultAction, `the global defaultAction: the policy for ${who} has no defaultAction and no operation matches ${call}`);
}
