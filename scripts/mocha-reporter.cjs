// Spec reporter plus one plain closing line ("N passed, N failed") that CI reads to count tests.
const Mocha = require('mocha');

class SvcReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once('end', () => {
      const s = runner.stats;
      process.stdout.write(`\ntests: ${s.passes} passed, ${s.failures} failed, ${s.pending} skipped\n`);
    });
  }
}

module.exports = SvcReporter;
