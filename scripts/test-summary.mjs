// Adds up the JSON reports vitest wrote in each package into one closing line.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const reports = ['apps', 'packages']
  .flatMap((folder) => readdirSync(folder).map((name) => join(folder, name, 'test-results.json')))
  .filter((path) => existsSync(path));

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of reports) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
