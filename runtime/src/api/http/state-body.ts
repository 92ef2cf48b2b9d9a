/**
 * Decoders for state API request bodies. Values are taken raw from the body text, so the store keeps each value
 * byte for byte as the client wrote it. Only shape and types are checked here; the rules live in `StateApi`.
 */
import { RuntimeError } from '../../errors/runtime-error.js';
import type { SaveStateItem, StateOptionsInput, TransactionOperationInput } from '../../state/state-api.js';
import type { StateMetadata } from '../../components/contracts/state-store.js';
import { parseJsonBodyWithSpans, type JsonNode } from './json-body.js';

/** Deepest raw value: `operations[i].request.value` in a transaction body. */
const SPAN_DEPTH = 4;

function required(node: JsonNode, name: string): JsonNode {
  const child = node.field(name);
  if (!child) throw new RuntimeError('ERR_MALFORMED_REQUEST', `${node.path ? `${node.path}.` : ''}${name} is required`);
  return child;
}

function options(node: JsonNode | undefined): StateOptionsInput | undefined {
  return node && { concurrency: node.field('concurrency')?.string(), consistency: node.field('consistency')?.string() };
}

function saveItem(node: JsonNode): SaveStateItem {
  if (!node.isObject()) throw new RuntimeError('ERR_MALFORMED_REQUEST', `${node.path} must be an object with key and value`);
  return {
    key: node.field('key')?.string() ?? '',
    value: node.field('value')?.rawBytes(),
    etag: node.field('etag')?.string(),
    metadata: node.field('metadata')?.stringMap(),
    options: options(node.field('options')),
  };
}

/** `[{key, value, etag?, metadata?, options?}, …]` */
export function decodeSaveBody(raw: Buffer): SaveStateItem[] {
  return parseJsonBodyWithSpans(raw, SPAN_DEPTH).items().map(saveItem);
}

/** `{keys: [...], parallelism?, metadata?}` */
export function decodeBulkGetBody(raw: Buffer): { keys: string[]; metadata: StateMetadata } {
  const body = parseJsonBodyWithSpans(raw, SPAN_DEPTH);
  return {
    keys: body.field('keys')?.items().map((k) => k.string()) ?? [],
    metadata: body.field('metadata')?.stringMap() ?? {},
  };
}

/** `{operations: [{operation: "upsert"|"delete", request: {key, value, etag?, …}}], metadata?}` */
export function decodeTransactionBody(raw: Buffer): { operations: TransactionOperationInput[]; metadata: StateMetadata } {
  const body = parseJsonBodyWithSpans(raw, SPAN_DEPTH);
  const operations = (body.field('operations')?.items() ?? []).map((op) => ({
    operation: required(op, 'operation').string(),
    request: saveItem(required(op, 'request')),
  }));
  return { operations, metadata: body.field('metadata')?.stringMap() ?? {} };
}
