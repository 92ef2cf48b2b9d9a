import type { AccessControl } from '../components/access-control-spec.js';
import { RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { accessDecision } from './access-control.js';
import type { AccessCheck } from './inbound.js';

/** Callers carry no trust domain of their own yet: every sidecar is in the default one. */
const CALLER_TRUST_DOMAIN = 'public';

/**
 * The receiving sidecar's access control: the Configuration's `accessControl` decides each call from the
 * authenticated caller; a refusal is logged with who called what, and answered 403 ERR_PERMISSION_DENIED.
 */
export function accessCheck(policy: () => AccessControl | undefined, log: Logger): AccessCheck {
  return (caller, head) => {
    const decision = accessDecision(policy(), { ...caller, trustDomain: CALLER_TRUST_DOMAIN }, { verb: head.verb, path: head.path });
    if (decision.allowed) return;
    const path = head.path.slice(0, 256);
    log.warn({ callerAppId: caller.appId, callerNamespace: caller.namespace, verb: head.verb, path, reason: decision.reason }, 'invocation denied by access control');
    throw new RuntimeError('ERR_PERMISSION_DENIED', `access control denied app ${caller.appId} (namespace ${caller.namespace}) ${head.verb} ${path}: ${decision.reason}`);
  };
}
