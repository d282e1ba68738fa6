/**
 * A vitest reporter that prints, at the end of a run, the ten test files that took longest
 * (accumulated duration of their tests and hooks, in seconds): where the suite's wall time goes
 * (issue 26). Runs beside the default reporter; prints nothing for a run of fewer than 10 files.
 */
import type { Reporter, TestModule } from 'vitest/node';

const SHOWN = 10;

export default class SlowestFilesReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    if (testModules.length < SHOWN) return;
    const rows = testModules
      .map((m) => ({ file: m.relativeModuleId, seconds: m.diagnostic().duration / 1000 }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, SHOWN);
    const total = testModules.reduce((sum, m) => sum + m.diagnostic().duration, 0) / 1000;
    const lines = rows.map((r) => `  ${r.seconds.toFixed(1).padStart(7)} s  ${r.file}`);
    process.stdout.write(
      `\nSlowest ${SHOWN} test files (of ${testModules.length}; ${total.toFixed(0)} s of tests and hooks in all):\n${lines.join('\n')}\n`,
    );
  }
}
