/** The error `promise` rejects with; a promise that resolves fails the test. */
export function failureOf(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err as Error,
  );
}
