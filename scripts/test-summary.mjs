// Adds up the JSON reports vitest wrote in each package into one closing line. A test file that failed
// outside any test (its set-up, an import), a package whose test script wrote no report, and a test command
// that exited non-zero (its status is the first argument) each count as failed: the line never says
// `0 failed` when anything failed. Each failed test is named above the line with its first message line, so the
// tail of a CI log (all that is kept of it) says what failed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const exitStatus = Number(process.argv[2] ?? 0);

// The workspace's projects (pnpm-workspace.yaml) whose package.json has a test script.
const children = (folder) =>
  readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(folder, entry.name));
const packagesWithTests = [...children('apps'), ...children('packages'), 'infra/local', 'bench'].filter((dir) => {
  const manifest = join(dir, 'package.json');
  return existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).scripts?.test;
});

let passed = 0;
let failed = 0;
let skipped = 0;
const problems = [];

// A package's report, and the reports of its further runs (`test-results.<run>.json`: the api's suites behind PgBouncer).
const reportsOf = (dir) => [
  join(dir, 'test-results.json'),
  ...readdirSync(dir)
    .filter((name) => /^test-results\.[\w-]+\.json$/.test(name))
    .sort()
    .map((name) => join(dir, name)),
];

for (const dir of packagesWithTests) {
  const file = join(dir, 'test-results.json');
  if (!existsSync(file)) {
    failed += 1;
    problems.push(`${dir}: no test report (its test command did not finish)`);
  }
  for (const report of reportsOf(dir).filter((path) => existsSync(path))) count(report);
}

function count(file) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  for (const result of report.testResults ?? []) {
    const failedTests = (result.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failedTests) {
      problems.push(`${result.name} > ${test.fullName ?? test.title}: ${firstLine(test.failureMessages?.[0])}`);
    }
    if (result.status === 'failed' && failedTests.length === 0) {
      failed += 1;
      problems.push(`${result.name}: failed outside its tests: ${firstLine(result.message)}`);
    }
  }
  if (report.success === false && report.numFailedTests === 0 && report.numFailedTestSuites === 0) {
    failed += 1;
    problems.push(`${file}: the run reported failure (unhandled error or no test found)`);
  }
}

if (exitStatus !== 0 && failed === 0) {
  failed += 1;
  problems.push(`the test command exited with status ${exitStatus}`);
}

for (const problem of problems) console.log(`failed: ${problem}`);
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);

function firstLine(text) {
  return (
    String(text ?? 'no message')
      .split('\n')
      .find((line) => line.trim()) ?? 'no message'
  );
}
