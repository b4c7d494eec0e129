/** scripts/test-summary.mjs, the closing line of `.ci/run`: it never says `0 failed` when anything failed. */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../../scripts/test-summary.mjs', import.meta.url));
const execFileAsync = promisify(execFile);

let workspace = '';

async function project(dir: string, report?: object): Promise<void> {
  await mkdir(join(workspace, dir), { recursive: true });
  await writeFile(join(workspace, dir, 'package.json'), JSON.stringify({ scripts: { test: 'vitest run' } }));
  if (report) await writeFile(join(workspace, dir, 'test-results.json'), JSON.stringify(report));
}

const passing = (tests: number) => ({
  success: true,
  numPassedTests: tests,
  numFailedTests: 0,
  numFailedTestSuites: 0,
  numPendingTests: 1,
  numTodoTests: 0,
  testResults: [{ name: '/a.test.ts', status: 'passed', message: '', assertionResults: [{ status: 'passed' }] }],
});

async function summary(exitStatus = 0): Promise<string[]> {
  const { stdout } = await execFileAsync(process.execPath, [script, String(exitStatus)], { cwd: workspace });
  return stdout.trim().split('\n');
}

describe('the closing line of the test run', () => {
  beforeEach(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'nestegg-summary-'));
    for (const folder of ['apps', 'packages']) await mkdir(join(workspace, folder));
  });
  afterEach(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  it('adds up passed, failed and skipped tests of every package', async () => {
    await project('apps/api', passing(3));
    await project('packages/db', passing(2));
    expect((await summary()).at(-1)).toBe('5 passed, 0 failed, 2 skipped');
  });

  it('adds a package’s further runs (test-results.<run>.json: the api behind PgBouncer)', async () => {
    await project('apps/api', passing(3));
    await writeFile(
      join(workspace, 'apps/api', 'test-results.pooler.json'),
      JSON.stringify({ ...passing(2), numFailedTests: 1 }),
    );
    expect((await summary()).at(-1)).toBe('5 passed, 1 failed, 2 skipped');
  });

  it('names each failed test with the first line of its message', async () => {
    await project('apps/api', {
      ...passing(1),
      success: false,
      numFailedTests: 1,
      testResults: [
        {
          name: '/flaky.test.ts',
          status: 'failed',
          message: '',
          assertionResults: [
            { status: 'passed', fullName: 'a passes' },
            {
              status: 'failed',
              fullName: 'logins > a burst is limited',
              failureMessages: ['\nAssertionError: expected 429 to be 200\n    at …'],
            },
          ],
        },
      ],
    });
    const lines = await summary(1);
    expect(lines).toContain(
      'failed: /flaky.test.ts > logins > a burst is limited: AssertionError: expected 429 to be 200',
    );
    expect(lines.at(-1)).toBe('1 passed, 1 failed, 1 skipped');
  });

  it('counts a test file that failed in its set-up, outside any test', async () => {
    await project('apps/api', {
      ...passing(3),
      success: false,
      numFailedTestSuites: 1,
      testResults: [
        {
          name: '/broken.test.ts',
          status: 'failed',
          message: 'Error: connect ECONNREFUSED\n  at …',
          assertionResults: [],
        },
      ],
    });
    const lines = await summary(1);
    expect(lines.at(-1)).toBe('3 passed, 1 failed, 1 skipped');
    expect(lines).toContain('failed: /broken.test.ts: failed outside its tests: Error: connect ECONNREFUSED');
  });

  it('counts a package whose test command wrote no report', async () => {
    await project('apps/api', passing(3));
    await project('packages/db');
    const lines = await summary(1);
    expect(lines.at(-1)).toBe('3 passed, 1 failed, 1 skipped');
    expect(lines[0]).toMatch(/packages\/db: no test report/);
  });

  it('never says 0 failed when the test command exited non-zero', async () => {
    await project('apps/api', passing(3));
    expect((await summary(2)).at(-1)).toBe('3 passed, 1 failed, 1 skipped');
  });
});
