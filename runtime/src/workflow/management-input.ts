/** What the management API takes from any transport: the workflow component segment and payloads as text. */
import { RuntimeError } from '../errors/runtime-error.js';

/** The documented component segment, and the alias `@dapr/dapr`'s DaprClient hard-codes (docs/workflows.md). */
export const WORKFLOW_COMPONENT_NAMES: readonly string[] = ['svc', 'dapr'];

export function checkWorkflowComponent(name: string): void {
  if (!WORKFLOW_COMPONENT_NAMES.includes(name)) {
    throw new RuntimeError(
      'ERR_WORKFLOW_COMPONENT_NOT_FOUND',
      `workflow component '${name}' does not exist: the built-in workflow component is 'svc' (alias 'dapr')`,
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
