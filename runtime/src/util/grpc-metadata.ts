/**
 * gRPC metadata as plain records (name → value or values; binary `-bin` values in base64, as HTTP/2 carries them),
 * so it can cross between sidecars in a JSON head and be filtered like HTTP headers. Only what a call's own
 * transport writes stays behind: the next hop's grpc-js writes its own.
 */
import * as grpc from '@grpc/grpc-js';

export type MetadataRecord = Record<string, string | string[]>;

/** Written by gRPC itself on each hop (framing, encoding, deadline, status), never passed from one call to another. */
const TRANSPORT_KEYS = new Set(['content-type', 'te', 'user-agent', 'date', 'accept-encoding', 'grpc-encoding', 'grpc-accept-encoding', 'grpc-timeout', 'grpc-status', 'grpc-message']);

function withoutTransportKeys(record: MetadataRecord): MetadataRecord {
  return Object.fromEntries(Object.entries(record).filter(([name]) => !TRANSPORT_KEYS.has(name)));
}

export function recordOfMetadata(metadata: grpc.Metadata): MetadataRecord {
  return withoutTransportKeys(metadata.toHttp2Headers() as MetadataRecord);
}

export function metadataOfRecord(record: MetadataRecord): grpc.Metadata {
  return grpc.Metadata.fromHttp2Headers(withoutTransportKeys(record));
}
