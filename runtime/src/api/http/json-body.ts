import { locateJson, type JsonSpan } from './json-spans.js';
import { malformedRequest } from '../../errors/catalogue.js';

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A node of a parsed JSON request body that also knows where it sits in the source text, so handlers can
 * validate types with field paths in their messages and take some values raw (`rawBytes`).
 */
export class JsonNode {
  constructor(
    readonly value: unknown,
    private readonly text: string,
    private readonly span: JsonSpan | undefined,
    /** Where the node is, for messages: `[2].etag`, `operations[0].request.key`. */
    readonly path: string,
  ) {}

  isObject(): boolean {
    return typeof this.value === 'object' && this.value !== null && !Array.isArray(this.value);
  }

  /**
   * A member of an object; names match exactly, or else case-insensitively (as Go's JSON decoding does for the
   * reference system, which SDKs rely on). Undefined when absent or null.
   */
  field(name: string): JsonNode | undefined {
    if (!this.isObject()) throw malformedRequest(`${this.path || 'body'} must be a JSON object`);
    const obj = this.value as Record<string, unknown>;
    const names = Object.keys(obj);
    const actual = names.includes(name) ? name : names.find((n) => n.toLowerCase() === name.toLowerCase());
    if (actual === undefined || obj[actual] === null) return undefined;
    return new JsonNode(obj[actual], this.text, this.span?.members?.get(actual), this.path ? `${this.path}.${name}` : name);
  }

  items(): JsonNode[] {
    if (!Array.isArray(this.value)) throw malformedRequest(`${this.path || 'body'} must be a JSON array`);
    return this.value.map((v, i) => new JsonNode(v, this.text, this.span?.items?.[i], `${this.path}[${i}]`));
  }

  string(): string {
    if (typeof this.value !== 'string') throw malformedRequest(`${this.path} must be a string`);
    return this.value;
  }

  /** An integer, also written as a string of digits (protojson accepts both for int32 and int64 fields). */
  integer(): number {
    const n = typeof this.value === 'string' && /^-?\d+$/.test(this.value) ? Number(this.value) : this.value;
    if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw malformedRequest(`${this.path} must be an integer`);
    return n;
  }

  /** An object whose values are all strings (metadata maps). */
  stringMap(): Record<string, string> {
    if (!this.isObject()) throw malformedRequest(`${this.path} must be an object of strings`);
    const entries = Object.entries(this.value as Record<string, unknown>);
    for (const [k, v] of entries) if (typeof v !== 'string') throw malformedRequest(`${this.path}.${k} must be a string`);
    // fromEntries defines own properties, so even a `__proto__` name stays an ordinary entry.
    return Object.fromEntries(entries) as Record<string, string>;
  }

  /** The node's exact source text as UTF-8 bytes. */
  rawBytes(): Buffer {
    if (!this.span) throw new Error(`JsonNode ${this.path} is deeper than its body was located`);
    return Buffer.from(this.text.slice(this.span.start, this.span.end), 'utf8');
  }
}

/**
 * Parses a request body as strict UTF-8 JSON (400 `ERR_MALFORMED_REQUEST` otherwise) and locates values down to
 * `spanDepth` levels of containers, the deepest level from which `rawBytes` will be taken.
 */
export function parseJsonBodyWithSpans(raw: Buffer, spanDepth: number): JsonNode {
  let text: string;
  let value: unknown;
  try {
    text = STRICT_UTF8.decode(raw);
  } catch (err) {
    throw malformedRequest('failed deserializing HTTP body: the body is not valid UTF-8', err);
  }
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw malformedRequest(`failed deserializing HTTP body: ${(err as Error).message}`, err);
  }
  return new JsonNode(value, text, locateJson(text, spanDepth), '');
}
