import { RuntimeError } from '../errors/runtime-error.js';

/** The documented component segment, and the alias `@dapr/dapr`'s DaprClient hard-codes (DESIGN §3). */
export const WORKFLOW_COMPONENT_NAMES: readonly string[] = ['svc', 'dapr'];

export const MAX_INSTANCE_ID_LENGTH = 64;

/**
 * ASCII letters, digits, `_` and `-`. ASCII only (not Unicode letters) so that "64 characters" is also 64 bytes
 * and an ID means the same thing in every state store key, log line and shell.
 */
const INSTANCE_ID_CHARS = /^[A-Za-z0-9_-]+$/;

export function checkWorkflowComponent(name: string): void {
  if (!WORKFLOW_COMPONENT_NAMES.includes(name)) {
    throw new RuntimeError(
      'ERR_WORKFLOW_COMPONENT_NOT_FOUND',
      `workflow component '${name}' does not exist: the built-in workflow component is 'svc' (alias 'dapr')`,
    );
  }
}

/** Applied on every route, not only start: an ID that could never have been created is a client bug, not a 404. */
export function checkInstanceId(id: string): void {
  if (id === '') throw new RuntimeError('ERR_INSTANCE_ID_PROVIDED_MISSING', 'no instance ID was provided');
  if (id.length > MAX_INSTANCE_ID_LENGTH) {
    throw new RuntimeError(
      'ERR_INSTANCE_ID_TOO_LONG',
      `workflow instance ID exceeds the max length of ${MAX_INSTANCE_ID_LENGTH} characters (got ${id.length})`,
    );
  }
  if (!INSTANCE_ID_CHARS.test(id)) {
    throw new RuntimeError(
      'ERR_INSTANCE_ID_INVALID',
      `workflow instance ID '${id}' is invalid: only letters, digits, underscores and dashes are allowed`,
    );
  }
}

/**
 * Workflow payloads travel as protobuf strings to the SDK, so the body must be UTF-8 text; decoding strictly
 * refuses bytes that would otherwise be silently replaced and change the input.
 */
export function bodyAsPayload(raw: Buffer): string | undefined {
  if (raw.length === 0) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(raw);
  } catch {
    throw new RuntimeError('ERR_MALFORMED_REQUEST', 'request body is not valid UTF-8 text: workflow inputs and event data must be text (usually JSON)');
  }
}
