/**
 * W3C `traceparent`/`tracestate` and `baggage` in and out of what svcd receives and sends: HTTP header records
 * and gRPC metadata. Through the globally registered propagator (tracing.ts).
 */
import type * as grpc from '@grpc/grpc-js';
import { context, propagation, ROOT_CONTEXT, type Context, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';

export type HeaderRecord = Readonly<Record<string, string | readonly string[] | number | undefined>>;

const headerGetter: TextMapGetter<HeaderRecord> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const v = carrier[key];
    return typeof v === 'number' ? String(v) : (v as string | string[] | undefined);
  },
};

const metadataGetter: TextMapGetter<grpc.Metadata> = {
  keys: (md) => Object.keys(md.getMap()),
  get: (md, key) => {
    const values = md.get(key);
    return values.length === 0 ? undefined : values.map(String);
  },
};

const metadataSetter: TextMapSetter<grpc.Metadata> = { set: (md, key, value) => md.set(key, value) };

/** The caller's context (a remote parent) from lower-case request headers; the root context when they carry none. */
export function contextFromHeaders(headers: HeaderRecord): Context {
  return propagation.extract(ROOT_CONTEXT, headers, headerGetter);
}

export function contextFromMetadata(metadata: grpc.Metadata): Context {
  return propagation.extract(ROOT_CONTEXT, metadata, metadataGetter);
}

/** Writes the active context's `traceparent` (and `tracestate`, `baggage`) into `headers`, replacing any there. */
export function injectIntoHeaders(headers: Record<string, string | string[] | undefined>, from: Context = context.active()): void {
  propagation.inject(from, headers);
}

export function injectIntoMetadata(metadata: grpc.Metadata, from: Context = context.active()): void {
  propagation.inject(from, metadata, metadataSetter);
}

/** The active context as `traceparent`/`tracestate` values (a CloudEvent's fields). */
export function traceHeaders(from: Context = context.active()): { traceparent?: string; tracestate?: string } {
  const out: Record<string, string> = {};
  propagation.inject(from, out);
  return { ...(out.traceparent ? { traceparent: out.traceparent } : {}), ...(out.tracestate ? { tracestate: out.tracestate } : {}) };
}
