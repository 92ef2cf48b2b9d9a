/**
 * Subscriptions, whichever way they were declared: programmatic (the app's `GET /dapr/subscribe` answer) or
 * declarative (`Subscription` resources). Both parse into one shape; every problem names where it came from.
 */
import { RuntimeError } from '../errors/runtime-error.js';
import { isRecord } from '../util/is-record.js';
import { compileMatch, type RouteMatcher } from './route-match.js';

export interface RouteRule {
  readonly match: string;
  readonly path: string;
  readonly matches: RouteMatcher;
}

export interface BulkSubscribeOptions {
  readonly maxMessagesCount: number;
  readonly maxAwaitDurationMs: number;
}

export interface Subscription {
  readonly pubsubName: string;
  readonly topic: string;
  /** Tried in order; the first that matches gives the path, else `defaultPath`. */
  readonly rules: readonly RouteRule[];
  readonly defaultPath: string | undefined;
  readonly deadLetterTopic: string | undefined;
  readonly metadata: Readonly<Record<string, string>>;
  readonly bulk: BulkSubscribeOptions | undefined;
  readonly kind: 'programmatic' | 'declarative' | 'streaming';
  /** For messages: `the app's /dapr/subscribe (entry 2)`, `file /r/subs.yaml (document 1)`. */
  readonly source: string;
}

/** A member by name, exact or else without case (the JSON the SDKs send varies: pubsubname, pubsubName). */
function member(obj: Record<string, unknown>, name: string): unknown {
  if (name in obj) return obj[name];
  const found = Object.keys(obj).find((k) => k.toLowerCase() === name.toLowerCase());
  return found === undefined ? undefined : obj[found];
}

function invalid(source: string, problem: string): never {
  throw new RuntimeError('ERR_PUBSUB_SUBSCRIPTION_INVALID', `subscription from ${source}: ${problem}`);
}

function text(obj: Record<string, unknown>, name: string, source: string, required: boolean): string | undefined {
  const v = member(obj, name);
  if (v === undefined || v === null || v === '') {
    if (required) invalid(source, `${name} is required`);
    return undefined;
  }
  if (typeof v !== 'string') invalid(source, `${name} must be a string`);
  return v;
}

const urlPath = (path: string): string => (path.startsWith('/') ? path : `/${path}`);

function stringMap(v: unknown, field: string, source: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isRecord(v)) invalid(source, `${field} must be a map of strings`);
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    if (typeof val !== 'string') invalid(source, `${field}.${k} must be a string`);
    out[k] = val;
  }
  return out;
}

function bulkOptions(v: unknown, source: string): BulkSubscribeOptions | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isRecord(v)) invalid(source, 'bulkSubscribe must be an object');
  if (member(v, 'enabled') !== true) return undefined;
  const count = member(v, 'maxMessagesCount') ?? 100;
  const await_ = member(v, 'maxAwaitDurationMs') ?? 1000;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 10_000) invalid(source, 'bulkSubscribe.maxMessagesCount must be a whole number from 1 to 10000');
  if (typeof await_ !== 'number' || !Number.isInteger(await_) || await_ < 0) invalid(source, 'bulkSubscribe.maxAwaitDurationMs must be a whole number of milliseconds');
  return { maxMessagesCount: count, maxAwaitDurationMs: await_ };
}

/**
 * One subscription's fields (the same names in `/dapr/subscribe` entries and in a resource's `spec`). With
 * `verbatimPaths` (an app on the gRPC channel) paths are the app's route names, passed back as they were: they
 * are not URL paths, so no `/` is added, and no route at all means the empty route.
 */
export function parseSubscription(obj: unknown, kind: Subscription['kind'], source: string, opts: { verbatimPaths?: boolean } = {}): Subscription {
  const routePath = opts.verbatimPaths ? (path: string) => path : urlPath;
  if (!isRecord(obj)) invalid(source, 'must be an object');
  const pubsubName = text(obj, 'pubsubname', source, true)!;
  const topic = text(obj, 'topic', source, true)!;
  const route = text(obj, 'route', source, false);
  const routes = member(obj, 'routes');
  const rules: RouteRule[] = [];
  let defaultPath = route === undefined ? undefined : routePath(route);
  if (routes !== undefined && routes !== null) {
    if (!isRecord(routes)) invalid(source, 'routes must be an object with rules and default');
    const rawRules = member(routes, 'rules') ?? [];
    if (!Array.isArray(rawRules)) invalid(source, 'routes.rules must be a list');
    rawRules.forEach((r: unknown, i) => {
      if (!isRecord(r)) invalid(source, `routes.rules[${i}] must be an object`);
      const match = text(r, 'match', source, true)!;
      const path = text(r, 'path', source, true)!;
      try {
        rules.push({ match, path: routePath(path), matches: compileMatch(match) });
      } catch (err) {
        invalid(source, `routes.rules[${i}]: ${(err as Error).message}`);
      }
    });
    const fallback = text(routes, 'default', source, false);
    if (fallback !== undefined) defaultPath = routePath(fallback);
  }
  if (rules.length === 0 && defaultPath === undefined) {
    if (!opts.verbatimPaths) invalid(source, `topic ${topic} has no route (route, or routes.default / routes.rules)`);
    defaultPath = '';
  }
  return {
    pubsubName,
    topic,
    rules,
    defaultPath,
    deadLetterTopic: text(obj, 'deadLetterTopic', source, false),
    metadata: stringMap(member(obj, 'metadata'), 'metadata', source),
    bulk: bulkOptions(member(obj, 'bulkSubscribe'), source),
    kind,
    source,
  };
}

/** The path a delivery of `event` goes to, or undefined when no rule matches and there is no default. */
export function routeFor(sub: Subscription, event: Record<string, unknown>): string | undefined {
  return sub.rules.find((r) => r.matches(event))?.path ?? sub.defaultPath;
}

/** The `subscriptions` entries of `/v1.0/metadata`. */
export function subscriptionMetadata(sub: Subscription): Record<string, unknown> {
  return {
    pubsubname: sub.pubsubName,
    topic: sub.topic,
    metadata: sub.metadata,
    rules: [...sub.rules.map((r) => ({ match: r.match, path: r.path })), ...(sub.defaultPath ? [{ match: '', path: sub.defaultPath }] : [])],
    ...(sub.deadLetterTopic ? { deadLetterTopic: sub.deadLetterTopic } : {}),
    ...(sub.bulk ? { bulkSubscribe: { enabled: true, ...sub.bulk } } : {}),
    type: sub.kind.toUpperCase(),
  };
}
