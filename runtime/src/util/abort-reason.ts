/** Why `signal` was aborted, as an Error to fail with; `fallback` names what was cancelled when the reason is none. */
export function abortReason(signal: AbortSignal, fallback = 'the call was cancelled'): Error {
  return signal.reason instanceof Error ? signal.reason : new Error(fallback);
}
