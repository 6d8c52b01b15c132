// Writes the suite's counts to HANDOFF_TEST_SUMMARY (when set) so that .ci/run can print them last.
const fs = require('node:fs');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const file = process.env.HANDOFF_TEST_SUMMARY;
    if (!file) return;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    fs.writeFileSync(
      file,
      JSON.stringify({ passed: results.numPassedTests, failed, skipped: results.numPendingTests }),
    );
  }
}

module.exports = SummaryReporter;
