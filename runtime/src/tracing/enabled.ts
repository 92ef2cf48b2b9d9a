/**
 * Whether svcd traces at all, set once at start. Every traced path asks this first: with tracing off it makes no
 * span, reads no header and touches no context, so an untraced svcd pays one boolean test per request.
 */
let enabled = false;

export function tracingEnabled(): boolean {
  return enabled;
}

export function setTracingEnabled(on: boolean): void {
  enabled = on;
}
