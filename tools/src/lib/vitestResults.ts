/**
 * What a vitest run wrote with `--reporter=json --outputFile.json=<file>`, read back per package:
 * how many tests passed, failed and were skipped, so a summary can be printed and a package whose
 * suite ran no test (or wrote nothing) counts as a failure.
 */
import { existsSync, readFileSync } from 'node:fs';

export interface SuiteCounts {
  /** the package name */
  name: string;
  passed: number;
  failed: number;
  /** skipped, pending and todo tests */
  skipped: number;
  /** why this package's suite counts as failed, if it does */
  problem: string | undefined;
}

/**
 * Reads one package's vitest JSON report.
 * @param name  the package name (used in the problem sentence)
 * @param file  the JSON report's path
 */
export function readSuiteCounts(name: string, file: string): SuiteCounts {
  if (!existsSync(file))
    return {
      name,
      passed: 0,
      failed: 0,
      skipped: 0,
      problem: `${name}: vitest wrote no JSON report at ${file} (the suite did not run to its end)`,
    };
  const report: any = JSON.parse(readFileSync(file, 'utf8'));
  const num = (key: string) => (typeof report[key] === 'number' ? report[key] : 0);
  const passed = num('numPassedTests');
  const failed = num('numFailedTests');
  const skipped = num('numPendingTests') + num('numTodoTests');
  // A file that failed outside its tests (a hook, an import) says why in its `message`: kept, so the
  // pass's log names the cause and not only the file.
  const failedFiles = (Array.isArray(report.testResults) ? report.testResults : [])
    .filter((r: any) => r.status === 'failed')
    .map((r: any) => (typeof r.message === 'string' && r.message.trim() !== '' ? `${r.name} (${firstLines(r.message)})` : r.name));
  let problem;
  if (failed > 0) problem = `${name}: ${failed} test(s) failed`;
  else if (failedFiles.length > 0) problem = `${name}: test file(s) failed to run: ${failedFiles.join(', ')}`;
  else if (report.success === false)
    problem = `${name}: vitest reported the run as failed (numFailedTestSuites ${num('numFailedTestSuites')})`;
  else if (passed === 0) problem = `${name}: the suite ran no test (0 passed)`;
  return { name, passed, failed, skipped, problem };
}

/** The first three lines of a failure message, on one line, at most 600 characters. */
function firstLines(message: string): string {
  const text = message.trim().split('\n').slice(0, 3).join(' ⏎ ');
  return text.length > 600 ? `${text.slice(0, 599)}…` : text;
}

/**
 * A plain table of the counts, one package a line, and the closing "N passed, N failed" line.
 */
export function formatSuiteCounts(suites: SuiteCounts[]) {
  const width = Math.max(...suites.map((s) => s.name.length), 7);
  const lines = suites.map(
    (s) =>
      `  ${s.name.padEnd(width)}  ${String(s.passed).padStart(5)} passed  ${String(s.failed).padStart(3)} failed  ${String(s.skipped).padStart(3)} skipped`,
  );
  const total = suites.reduce((t, s) => ({ passed: t.passed + s.passed, failed: t.failed + s.failed, skipped: t.skipped + s.skipped }), {
    passed: 0,
    failed: 0,
    skipped: 0,
  });
  return [...lines, `node24: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`].join('\n');
}
