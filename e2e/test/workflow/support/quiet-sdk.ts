/**
 * `@dapr/durabletask-js`'s client prints a console line for every call ("Starting new ... instance", "Raising
 * event ..."), and `@dapr/dapr`'s vendored copy logs every work item at INFO whatever logger level it is given.
 * Those lines carry nothing a test asserts on and bury mocha's report, so the e2e suites drop them (everything
 * else, warnings and errors included, still prints).
 */
const SDK_CHATTER =
  /^(Starting new \S+ instance|Waiting \d+ seconds for instance|Instance \S+ (completed|was terminated|failed)|Raising event '|Terminating '|Suspending '|Resuming '|Purging Instance|\S+ INFO \[DurableTask, )/;

for (const method of ['log', 'info'] as const) {
  const original = console[method].bind(console);
  console[method] = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && SDK_CHATTER.test(args[0])) return;
    original(...args);
  };
}

export {};
