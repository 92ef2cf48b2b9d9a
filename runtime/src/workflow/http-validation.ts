import { RuntimeError } from '../errors/runtime-error.js';

/** The documented component segment, and the alias `@dapr/dapr`'s DaprClient hard-codes (DESIGN §3). */
export const WORKFLOW_COMPONENT_NAMES: readonly string[] = ['svc', 'dapr'];

/** Limit for IDs a user chooses (start). */
export const MAX_INSTANCE_ID_LENGTH = 64;

/**
 * Limit for IDs of instances that may already exist (every other route). The SDKs name a sub-workflow
 * `<parent>:<4+ hex digits>`, so a child of a 64-character root is 69 characters and each nesting level adds
 * about 5 more; 256 leaves room for ~38 levels while still refusing arbitrarily long paths before they reach
 * the state store.
 */
export const MAX_EXISTING_INSTANCE_ID_LENGTH = 256;

/**
 * ASCII letters, digits, `_` and `-`. ASCII only (not Unicode letters) so that "64 characters" is also 64 bytes
 * and an ID means the same thing in every state store key, log line and shell.
 */
const INSTANCE_ID_CHARS = /^[A-Za-z0-9_-]+$/;

/** Segments of the start charset joined by `:`: what the engine itself creates for SDK sub-workflows. */
const EXISTING_INSTANCE_ID_CHARS = /^[A-Za-z0-9_-]+(?::[A-Za-z0-9_-]+)*$/;

export function checkWorkflowComponent(name: string): void {
  if (!WORKFLOW_COMPONENT_NAMES.includes(name)) {
    throw new RuntimeError(
      'ERR_WORKFLOW_COMPONENT_NOT_FOUND',
      `workflow component '${name}' does not exist: the built-in workflow component is 'svc' (alias 'dapr')`,
    );
  }
}

interface InstanceIdRule {
  readonly maxLength: number;
  readonly chars: RegExp;
  readonly allowed: string;
}

const START_RULE: InstanceIdRule = {
  maxLength: MAX_INSTANCE_ID_LENGTH,
  chars: INSTANCE_ID_CHARS,
  allowed: 'only letters, digits, underscores and dashes are allowed',
};

const EXISTING_RULE: InstanceIdRule = {
  maxLength: MAX_EXISTING_INSTANCE_ID_LENGTH,
  chars: EXISTING_INSTANCE_ID_CHARS,
  allowed: 'only letters, digits, underscores and dashes are allowed, in segments joined by single colons (sub-workflow IDs)',
};

function checkAgainst(id: string, rule: InstanceIdRule): void {
  if (id === '') throw new RuntimeError('ERR_INSTANCE_ID_PROVIDED_MISSING', 'no instance ID was provided');
  if (id.length > rule.maxLength) {
    throw new RuntimeError(
      'ERR_INSTANCE_ID_TOO_LONG',
      `workflow instance ID exceeds the max length of ${rule.maxLength} characters (got ${id.length})`,
    );
  }
  if (!rule.chars.test(id)) throw new RuntimeError('ERR_INSTANCE_ID_INVALID', `workflow instance ID '${id}' is invalid: ${rule.allowed}`);
}

/** The ID a user chooses when starting a workflow (brief §8): the strict rule. */
export function checkNewInstanceId(id: string): void {
  checkAgainst(id, START_RULE);
}

/**
 * The ID on every other route: anything the engine can have created, including SDK sub-workflow IDs like
 * `<parent>:0001`. Still checked (not passed through): an ID that could never exist is a client bug, not a 404.
 */
export function checkExistingInstanceId(id: string): void {
  checkAgainst(id, EXISTING_RULE);
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
