/**
 * A `Resiliency` document (ours or Dapr's, one schema; docs/resiliency.md): named policies, and the targets they
 * apply to. Policy names are resolved here, inside their document, so what leaves this file holds the policies
 * themselves; every error names the document and the field.
 */
import { parseDuration } from '../config/parse-values.js';
import { RuntimeError } from '../errors/runtime-error.js';
import { compileTrip, type TripRule } from './trip-expression.js';

export interface TimeoutPolicy {
  readonly name: string;
  readonly ms: number;
}

/** Inclusive ranges of status codes, e.g. `429,500-599` → [[429, 429], [500, 599]]. */
export type StatusRanges = readonly (readonly [from: number, to: number])[];

export interface RetryPolicy {
  readonly name: string;
  readonly policy: 'constant' | 'exponential';
  /** constant: the wait before each retry. @default 5s */
  readonly durationMs: number;
  /** exponential: the first wait, doubled on each retry. @default 500ms */
  readonly initialIntervalMs: number;
  /** exponential: the longest wait. @default 60s */
  readonly maxIntervalMs: number;
  /** Retries after the first attempt; -1 retries until the call succeeds or its caller gives up. @default -1 */
  readonly maxRetries: number;
  /** Status codes a failed call is retried on; absent means every failure the caller calls retryable. */
  readonly matching: { readonly http?: StatusRanges; readonly grpc?: StatusRanges };
}

export interface CircuitBreakerPolicy {
  readonly name: string;
  /** Calls let through while half-open. @default 1 */
  readonly maxRequests: number;
  /** While closed, the counts restart every interval; 0 never. @default 0 */
  readonly intervalMs: number;
  /** How long it stays open before letting probes through. @default 60s */
  readonly timeoutMs: number;
  /** The condition as written, and compiled. @default consecutiveFailures > 5 */
  readonly trip: string;
  readonly tripRule: TripRule;
}

export interface TargetPolicies {
  /** Where it was declared: `spec.targets.apps.appB`; `source` is the document. */
  readonly field: string;
  readonly source: string;
  readonly timeout?: TimeoutPolicy;
  readonly retry?: RetryPolicy;
  readonly circuitBreaker?: CircuitBreakerPolicy;
}

/** An actor type's breaker counts for the whole type, for each actor id, or both. */
export type ActorBreakerScope = 'type' | 'id' | 'both';

export interface ActorTargetPolicies extends TargetPolicies {
  /** @default type */
  readonly breakerScope: ActorBreakerScope;
  /** Breakers kept for actor ids (least recently used dropped). @default 5000 */
  readonly breakerCacheSize: number;
}

/** Targets by app id, actor type and component name (a component's two directions are separate targets). */
export interface ResiliencyTargets {
  readonly apps: ReadonlyMap<string, TargetPolicies>;
  readonly actors: ReadonlyMap<string, ActorTargetPolicies>;
  readonly outbound: ReadonlyMap<string, TargetPolicies>;
  readonly inbound: ReadonlyMap<string, TargetPolicies>;
}

export interface ResiliencySpec {
  readonly name: string;
  readonly source: string;
  /** App ids that use it; empty means every app. */
  readonly scopes: readonly string[];
  readonly targets: ResiliencyTargets;
}

type Fields = Record<string, unknown>;

const isFields = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The readers of one document's fields; each failure names the document and the field. */
function fieldReader(source: string) {
  const fail = (field: string, problem: string): never => {
    throw new RuntimeError('ERR_RESILIENCY_INVALID', `${source}: ${field} ${problem}`);
  };
  const fields = (field: string, v: unknown): Fields => (v === undefined || v === null ? {} : isFields(v) ? v : fail(field, 'must be a map'));
  const duration = (field: string, v: unknown, fallback: number): number => {
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'string' && typeof v !== 'number') return fail(field, 'must be a duration such as 5s, 500ms or 1m30s');
    try {
      return parseDuration(String(v));
    } catch (err) {
      return fail(field, (err as Error).message);
    }
  };
  const whole = (field: string, v: unknown, fallback: number, min: number): number => {
    if (v === undefined || v === null) return fallback;
    const n = typeof v === 'string' ? Number(v) : v;
    return typeof n === 'number' && Number.isInteger(n) && n >= min ? n : fail(field, `must be a whole number of at least ${min}, got ${JSON.stringify(v)}`);
  };
  return { fail, fields, duration, whole };
}
type FieldReader = ReturnType<typeof fieldReader>;

/** `"429,500-599"` (a number alone is one code); empty means no list. */
function statusRanges(read: FieldReader, field: string, v: unknown, [min, max]: readonly [number, number]): StatusRanges | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' && typeof v !== 'number') return read.fail(field, 'must be a comma-separated list of codes and ranges, such as "429,500-599"');
  return String(v)
    .split(',')
    .map((part) => {
      const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
      const [from, to] = [Number(m?.[1]), Number(m?.[2] ?? m?.[1])];
      if (!m || from < min || to > max || from > to) return read.fail(field, `has '${part.trim()}': codes and ranges (from-to) must lie within ${min}-${max}`);
      return [from, to] as const;
    });
}

function parseRetry(read: FieldReader, field: string, name: string, raw: unknown): RetryPolicy {
  const f = read.fields(field, raw);
  const policy = f.policy ?? 'constant';
  if (policy !== 'constant' && policy !== 'exponential') return read.fail(`${field}.policy`, `must be constant or exponential, got ${JSON.stringify(policy)}`);
  const matching = read.fields(`${field}.matching`, f.matching);
  return {
    name,
    policy,
    durationMs: read.duration(`${field}.duration`, f.duration, 5_000),
    initialIntervalMs: read.duration(`${field}.initialInterval`, f.initialInterval, 500),
    maxIntervalMs: read.duration(`${field}.maxInterval`, f.maxInterval, 60_000),
    maxRetries: read.whole(`${field}.maxRetries`, f.maxRetries, -1, -1),
    matching: {
      http: statusRanges(read, `${field}.matching.httpStatusCodes`, matching.httpStatusCodes, [100, 599]),
      grpc: statusRanges(read, `${field}.matching.gRPCStatusCodes`, matching.gRPCStatusCodes, [0, 16]),
    },
  };
}

function parseBreaker(read: FieldReader, field: string, name: string, raw: unknown): CircuitBreakerPolicy {
  const f = read.fields(field, raw);
  const trip = f.trip ?? 'consecutiveFailures > 5';
  if (typeof trip !== 'string') return read.fail(`${field}.trip`, 'must be a condition such as consecutiveFailures > 5');
  let tripRule: TripRule;
  try {
    tripRule = compileTrip(trip);
  } catch (err) {
    return read.fail(`${field}.trip`, (err as Error).message);
  }
  return {
    name,
    maxRequests: read.whole(`${field}.maxRequests`, f.maxRequests, 1, 1),
    intervalMs: read.duration(`${field}.interval`, f.interval, 0),
    timeoutMs: read.duration(`${field}.timeout`, f.timeout, 60_000),
    trip,
    tripRule,
  };
}

/** `spec.policies.<group>` as name → policy. */
function policies<P>(read: FieldReader, group: string, raw: unknown, parse: (field: string, name: string, value: unknown) => P): ReadonlyMap<string, P> {
  const field = `spec.policies.${group}`;
  return new Map(Object.entries(read.fields(field, raw)).map(([name, value]) => [name, parse(`${field}.${name}`, name, value)]));
}

interface Policies {
  readonly timeouts: ReadonlyMap<string, TimeoutPolicy>;
  readonly retries: ReadonlyMap<string, RetryPolicy>;
  readonly circuitBreakers: ReadonlyMap<string, CircuitBreakerPolicy>;
}

function parseTarget(read: FieldReader, source: string, field: string, raw: unknown, all: Policies): TargetPolicies {
  const f = read.fields(field, raw);
  const pick = <P>(key: string, group: keyof Policies, named: ReadonlyMap<string, P>): P | undefined => {
    const name = f[key];
    if (name === undefined || name === null || name === '') return undefined;
    const found = typeof name === 'string' ? named.get(name) : undefined;
    const known = named.size === 0 ? 'none' : [...named.keys()].join(', ');
    return found ?? read.fail(`${field}.${key}`, `names no policy in spec.policies.${group}: ${JSON.stringify(name)} (defined: ${known})`);
  };
  return {
    field,
    source,
    timeout: pick('timeout', 'timeouts', all.timeouts),
    retry: pick('retry', 'retries', all.retries),
    circuitBreaker: pick('circuitBreaker', 'circuitBreakers', all.circuitBreakers),
  };
}

function parseActorTarget(read: FieldReader, source: string, field: string, raw: unknown, all: Policies): ActorTargetPolicies {
  const f = read.fields(field, raw);
  const scope = f.circuitBreakerScope ?? 'type';
  if (scope !== 'type' && scope !== 'id' && scope !== 'both') return read.fail(`${field}.circuitBreakerScope`, `must be type, id or both, got ${JSON.stringify(scope)}`);
  return {
    ...parseTarget(read, source, field, raw, all),
    breakerScope: scope,
    breakerCacheSize: read.whole(`${field}.circuitBreakerCacheSize`, f.circuitBreakerCacheSize, 5000, 1),
  };
}

function parseTargets(read: FieldReader, source: string, raw: unknown, all: Policies): ResiliencyTargets {
  const targets = read.fields('spec.targets', raw);
  const each = <T>(group: string, parse: (field: string, value: unknown) => T): Map<string, T> =>
    new Map(Object.entries(read.fields(`spec.targets.${group}`, targets[group])).map(([name, value]) => [name, parse(`spec.targets.${group}.${name}`, value)]));
  const components = each('components', (field, value) => read.fields(field, value));
  const direction = (d: 'outbound' | 'inbound'): Map<string, TargetPolicies> =>
    new Map([...components].filter(([, c]) => c[d] !== undefined && c[d] !== null).map(([name, c]) => [name, parseTarget(read, source, `spec.targets.components.${name}.${d}`, c[d], all)]));
  return {
    apps: each('apps', (field, value) => parseTarget(read, source, field, value, all)),
    actors: each('actors', (field, value) => parseActorTarget(read, source, field, value, all)),
    outbound: direction('outbound'),
    inbound: direction('inbound'),
  };
}

/** Validates one Resiliency document (see components/resiliency-document.ts for which documents are). */
export function parseResiliencySpec(doc: unknown, source: string): ResiliencySpec {
  const read = fieldReader(source);
  if (!isFields(doc)) return read.fail('document', 'must be a YAML map');
  const name = read.fields('metadata', doc.metadata).name;
  if (typeof name !== 'string' || name === '') return read.fail('metadata.name', 'is required');
  const scopes: unknown = doc.scopes ?? [];
  if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string')) return read.fail('scopes', 'must be a list of app ids');
  const spec = read.fields('spec', doc.spec);
  const raw = read.fields('spec.policies', spec.policies);
  const all: Policies = {
    timeouts: policies(read, 'timeouts', raw.timeouts, (field, policy, v) => {
      const ms = read.duration(field, v, 0);
      return ms > 0 ? { name: policy, ms } : read.fail(field, 'must be a duration longer than 0, such as 5s');
    }),
    retries: policies(read, 'retries', raw.retries, (field, policy, v) => parseRetry(read, field, policy, v)),
    circuitBreakers: policies(read, 'circuitBreakers', raw.circuitBreakers, (field, policy, v) => parseBreaker(read, field, policy, v)),
  };
  return { name, source, scopes: scopes as string[], targets: parseTargets(read, source, spec.targets, all) };
}
