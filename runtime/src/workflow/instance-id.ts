/**
 * Instance-ID rules, the same on every transport (HTTP, the Durable Task gRPC service) and for the IDs workers
 * choose for sub-workflows; and what a start does with an ID already in use.
 */
import { RuntimeError } from '../errors/runtime-error.js';
import { isTerminalStatus, type IdReusePolicy, type RuntimeStatus } from './engine.js';

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

/** What is wrong with `id` under `rule` (the error a check throws), or undefined when it is fine. */
function problemWith(id: string, rule: InstanceIdRule): RuntimeError | undefined {
  if (id === '') return new RuntimeError('ERR_INSTANCE_ID_PROVIDED_MISSING', 'no instance ID was provided');
  if (id.length > rule.maxLength) {
    return new RuntimeError('ERR_INSTANCE_ID_TOO_LONG', `workflow instance ID exceeds the max length of ${rule.maxLength} characters (got ${id.length})`);
  }
  if (!rule.chars.test(id)) return new RuntimeError('ERR_INSTANCE_ID_INVALID', `workflow instance ID '${id}' is invalid: ${rule.allowed}`);
  return undefined;
}

/** The ID a user chooses when starting a workflow: the strict rule. */
export function checkNewInstanceId(id: string): void {
  const problem = problemWith(id, START_RULE);
  if (problem) throw problem;
}

/**
 * The ID on every other route: anything the engine can have created, including SDK sub-workflow IDs like
 * `<parent>:0001`. Still checked (not passed through): an ID that could never exist is a client bug, not a 404.
 */
export function checkExistingInstanceId(id: string): void {
  const problem = existingInstanceIdProblem(id);
  if (problem) throw problem;
}

/** Like `checkExistingInstanceId`, for IDs a worker chose (sub-workflows, event targets): the problem, not a throw. */
export function existingInstanceIdProblem(id: string): RuntimeError | undefined {
  return problemWith(id, EXISTING_RULE);
}

/** What a start does with the existing instance of its ID (see `IdReusePolicy`). */
export function reuseDecision(status: RuntimeStatus, policy: IdReusePolicy | undefined): 'replace' | 'ignore' | 'refuse' {
  if (!policy) return isTerminalStatus(status) ? 'replace' : 'refuse';
  if (policy.unique) return 'refuse';
  if (!policy.statuses?.includes(status)) return 'refuse';
  if (policy.action === 'ignore') return 'ignore';
  return policy.action === 'terminate' ? 'replace' : 'refuse';
}
