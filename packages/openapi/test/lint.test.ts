import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../src/index.js';

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('..', import.meta.url));

type LintReport = {
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>;
};

/** `redocly lint` with redocly.yaml; it exits non-zero on errors, the JSON report is on stdout either way. */
const lint = async (document: unknown): Promise<LintReport> => {
  const dir = await mkdtemp(join(tmpdir(), 'nestegg-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    const args = ['exec', 'redocly', 'lint', file, '--config', 'redocly.yaml', '--format=json'];
    const output = await run('pnpm', args, { cwd: packageDir }).catch((error: { stdout?: string }) => error);
    return JSON.parse(output.stdout ?? '') as LintReport;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

describe('redocly lint', () => {
  it('finds no error and no warning in the document CI publishes', async () => {
    const report = await lint(buildOpenApiDocument());
    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 120_000); // the CLI resolves every problem response's `allOf` (C32): seconds alone, far more on a busy runner
});
