/**
 * Issue 37: the module boundaries (`.dependency-cruiser.cjs`, decision F13) hold on the api as it is, and each rule
 * fails when a forbidden import is planted: a tree shaped like `src/` is written to a temporary folder, a clean
 * one first, then one forbidden import at a time.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseOptions, type IViolation } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

const API = fileURLToPath(new URL('..', import.meta.url));
const rules = createRequire(import.meta.url)('../.dependency-cruiser.cjs') as {
  forbidden: ICruiseOptions['ruleSet'] extends { forbidden?: infer F } ? F : never;
  options: ICruiseOptions;
};

async function violations(root: string, tsConfig?: string): Promise<IViolation[]> {
  const options: ICruiseOptions = {
    ...rules.options,
    ruleSet: { forbidden: rules.forbidden } as ICruiseOptions['ruleSet'],
    validate: true,
    ...(tsConfig ? { tsConfig: { fileName: tsConfig } } : { tsConfig: undefined, tsPreCompilationDeps: false }),
  };
  const result = await cruise(['src'], { ...options, baseDir: root });
  if (typeof result.output === 'string') throw new Error(result.output);
  return result.output.summary.violations;
}

/** A small tree of the api's shape: two areas, three modules with faces, lib and plugins. */
const CLEAN: Record<string, string> = {
  'src/lib/errors.ts': 'export class AppError extends Error {}\n',
  'src/plugins/errors.ts': "import { AppError } from '../lib/errors.js';\nexport const handler = AppError;\n",
  'src/env.ts': 'export const env = {};\n',
  'src/modules/ledger/entries/index.ts': "export { EntriesService } from './entries.service.js';\n",
  'src/modules/ledger/entries/entries.service.ts':
    "import { PointsService } from '../../members/points/index.js';\nexport class EntriesService { points = PointsService; }\n",
  'src/modules/ledger/entries/entry.view.ts': 'export const toEntry = 1;\n',
  'src/modules/members/points/index.ts': "export { PointsService } from './points.service.js';\n",
  'src/modules/members/points/points.service.ts': 'export class PointsService {}\n',
  'src/modules/board/posts/index.ts': "export { PostsService } from './posts.service.js';\n",
  'src/modules/board/posts/posts.service.ts':
    "import { PointsService } from '../../members/points/index.js';\nexport class PostsService { points = PointsService; }\n",
  'src/services.ts':
    "import { EntriesService } from './modules/ledger/entries/index.js';\nexport const services = { EntriesService };\n",
};

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function plant(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'nestegg-boundaries-'));
  roots.push(root);
  for (const [path, text] of Object.entries({ ...CLEAN, ...files })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const broken = async (files: Record<string, string>) =>
  (await violations(plant(files))).map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`);

describe('module boundaries', () => {
  it('hold on the api: no import into another module’s internals, no module loop, nothing below reaching up', async () => {
    expect(await violations(API, 'tsconfig.json')).toEqual([]);
  });

  it('pass on a clean tree of the same shape', async () => {
    expect(await broken({})).toEqual([]);
  });

  it('refuse an import of another module’s internal file', async () => {
    const internal = "import { toEntry } from '../../ledger/entries/entry.view.js';\nexport const view = toEntry;\n";
    expect(await broken({ 'src/modules/board/posts/reach.ts': internal })).toEqual([
      'module-internals: src/modules/board/posts/reach.ts → src/modules/ledger/entries/entry.view.ts',
    ]);
  });

  it('refuse the composition root reaching past a face', async () => {
    const root =
      "import { EntriesService } from './modules/ledger/entries/entries.service.js';\nexport const s = EntriesService;\n";
    expect(await broken({ 'src/services.ts': root })).toEqual([
      'outside-into-module-internals: src/services.ts → src/modules/ledger/entries/entries.service.ts',
    ]);
  });

  it('refuse a loop between two modules, even through their faces', async () => {
    const back =
      "import { EntriesService } from '../../ledger/entries/index.js';\nexport class PointsService { e = EntriesService; }\n";
    const names = await broken({ 'src/modules/members/points/points.service.ts': back });
    expect(names.some((name) => name.startsWith('module-loop: src/modules/'))).toBe(true);
    expect(names.every((name) => name.startsWith('module-loop: '))).toBe(true);
  });

  it('refuse lib/, plugins/ and env.ts importing from a module', async () => {
    const up = "import { PointsService } from '../modules/members/points/index.js';\nexport const p = PointsService;\n";
    expect(await broken({ 'src/lib/up.ts': up, 'src/plugins/up.ts': up })).toEqual([
      'lower-layers-into-modules: src/lib/up.ts → src/modules/members/points/index.ts',
      'lower-layers-into-modules: src/plugins/up.ts → src/modules/members/points/index.ts',
    ]);
  });

  it('let tests use their module’s internals and other modules’ fixtures', async () => {
    const test = "import { toEntry } from '../../ledger/entries/entry.view.js';\nexport const t = toEntry;\n";
    expect(await broken({ 'src/modules/board/posts/posts.test.ts': test })).toEqual([]);
  });
});
