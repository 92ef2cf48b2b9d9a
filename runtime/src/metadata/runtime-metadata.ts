/**
 * What `/v1.0/metadata` and the gRPC `GetMetadata` show: each part of the runtime contributes its own fields
 * (components, actors, workflows, subscriptions…), plus the `extended` attributes clients set (`SetMetadata`,
 * `PUT /v1.0/metadata/<key>`), kept in this process only, as Dapr does.
 */
import { RuntimeError } from '../errors/runtime-error.js';

export type MetadataContributor = () => Record<string, unknown>;

/** Bounds on what clients may store: the attributes are for labels, not data. */
const MAX_ATTRIBUTES = 100;
const MAX_VALUE_BYTES = 4096;

export class RuntimeMetadata {
  readonly #extended = new Map<string, string>();

  constructor(private readonly contributors: readonly MetadataContributor[]) {}

  snapshot(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const contribute of this.contributors) Object.assign(out, contribute());
    out.extended = Object.fromEntries(this.#extended);
    return out;
  }

  set(key: string, value: string): void {
    if (key === '') throw new RuntimeError('ERR_MALFORMED_REQUEST', 'a metadata attribute needs a key');
    if (Buffer.byteLength(value) > MAX_VALUE_BYTES) throw new RuntimeError('ERR_MALFORMED_REQUEST', `metadata attribute ${key} is over ${MAX_VALUE_BYTES} bytes`);
    if (!this.#extended.has(key) && this.#extended.size >= MAX_ATTRIBUTES) throw new RuntimeError('ERR_MALFORMED_REQUEST', `at most ${MAX_ATTRIBUTES} metadata attributes can be set`);
    this.#extended.set(key, value);
  }
}
