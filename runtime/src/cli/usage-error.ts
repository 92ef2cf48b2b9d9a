/** A mistake in how the CLI was called: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
