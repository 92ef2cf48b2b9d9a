/** Internal-port methods of the workflow engine (workflow/peer-handlers.ts serves them). */
export const WORKFLOW_PEER_METHODS = {
  wait: 'WorkflowWait',
  offer: 'WorkflowOffer',
} as const;
