/**
 * Tracing settings: `spec.tracing` of the Configuration resource (as the reference system writes it) and the
 * OpenTelemetry environment variables. Compiled once at start; a bad value fails the start with the field named.
 *
 *   spec:
 *     tracing:
 *       samplingRate: "1"              # 0 to 1; "0": nothing sampled, contexts still propagated
 *       otel:
 *         endpointAddress: "localhost:4318"
 *         isSecure: false
 *         protocol: http               # or grpc
 *
 * The Configuration's endpoint wins; without one, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT
 * (with OTEL_EXPORTER_OTLP_PROTOCOL) is used. Neither a `spec.tracing` nor an endpoint: tracing is off (no
 * provider, nothing on any request's path).
 */
import { configurationInvalid } from '../errors/catalogue.js';
import { isRecord } from '../util/is-record.js';

export type OtlpProtocol = 'http' | 'grpc';

export interface OtlpTarget {
  /** For `http`: the traces URL (`…/v1/traces`); for `grpc`: `http(s)://host:port`. */
  readonly url: string;
  readonly protocol: OtlpProtocol;
}

export interface TracingOptions {
  /** The share of new traces sampled (a parent's decision is always followed). */
  readonly samplingRate: number;
  /** Undefined: spans are made and contexts propagated, nothing is exported. */
  readonly exporter: OtlpTarget | undefined;
}

/** The rate when tracing is configured without one. */
const DEFAULT_SAMPLING_RATE = 1;
const TRACES_PATH = '/v1/traces';

type Env = Readonly<Record<string, string | undefined>>;

function samplingRate(source: string, v: unknown): number {
  if (v === undefined || v === null || v === '') return DEFAULT_SAMPLING_RATE;
  const rate = typeof v === 'number' ? v : typeof v === 'string' && /^\s*[0-9.eE+-]+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(rate) || rate < 0 || rate > 1) throw configurationInvalid(source, 'spec.tracing.samplingRate', `must be a number from 0 to 1, not ${JSON.stringify(v)}`);
  return rate;
}

function protocolOf(source: string, field: string, v: unknown): OtlpProtocol {
  if (v === undefined || v === null || v === '') return 'http';
  const text = typeof v === 'string' ? v.toLowerCase() : JSON.stringify(v);
  // OTEL_EXPORTER_OTLP_PROTOCOL's values; the exporter sends protobuf either way.
  if (text === 'grpc') return 'grpc';
  if (text === 'http' || text === 'http/protobuf' || text === 'http/json') return 'http';
  throw configurationInvalid(source, field, `must be http or grpc, not ${JSON.stringify(v)}`);
}

/**
 * `endpointAddress` as the exporter wants it. A bare `host:port` gets the scheme `isSecure` says; for OTLP/HTTP an
 * address without a path gets `/v1/traces` (`exactPath`: the address is the traces URL already, as
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is).
 */
export function otlpUrl(address: string, protocol: OtlpProtocol, secure: boolean, exactPath = false): URL {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(address) ? address : `${secure ? 'https' : 'http'}://${address}`;
  const url = new URL(withScheme);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`the scheme ${url.protocol} is not http or https`);
  if (protocol === 'grpc') return new URL(`${url.protocol}//${url.host}`);
  if (!exactPath) url.pathname = url.pathname.replace(/\/+$/, '') + TRACES_PATH;
  return url;
}

function fromConfiguration(source: string, otel: Record<string, unknown>): OtlpTarget | undefined {
  const address = otel.endpointAddress;
  if (address === undefined || address === null || address === '') return undefined;
  if (typeof address !== 'string') throw configurationInvalid(source, 'spec.tracing.otel.endpointAddress', 'must be a string');
  const protocol = protocolOf(source, 'spec.tracing.otel.protocol', otel.protocol);
  const secure = otel.isSecure === true || otel.isSecure === 'true';
  try {
    return { url: otlpUrl(address, protocol, secure).href, protocol };
  } catch (err) {
    throw configurationInvalid(source, 'spec.tracing.otel.endpointAddress', `is not an address (${(err as Error).message})`);
  }
}

function fromEnv(env: Env): OtlpTarget | undefined {
  const exact = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const address = exact || base;
  if (!address) return undefined;
  const field = exact ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  const protocol = protocolOf('environment', 'OTEL_EXPORTER_OTLP_PROTOCOL', env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL);
  try {
    return { url: otlpUrl(address, protocol, false, Boolean(exact)).href, protocol };
  } catch (err) {
    throw configurationInvalid('environment', field, `is not an address (${(err as Error).message})`);
  }
}

/** Undefined: tracing is off. */
export function compileTracingOptions(spec: Readonly<Record<string, unknown>> | undefined, env: Env, source = 'configuration'): TracingOptions | undefined {
  const otel = spec?.otel;
  if (otel !== undefined && otel !== null && !isRecord(otel)) throw configurationInvalid(source, 'spec.tracing.otel', 'must be a map');
  const exporter = (isRecord(otel) ? fromConfiguration(source, otel) : undefined) ?? fromEnv(env);
  if (spec === undefined && exporter === undefined) return undefined;
  return { samplingRate: samplingRate(source, spec?.samplingRate), exporter };
}
