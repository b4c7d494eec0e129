/**
 * The images build from what the repository holds (no Docker daemon runs here, so this reads the files):
 * every workspace project's manifest and every pnpm patch reach the first `pnpm install` (pnpm skips a
 * lockfile importer whose package.json is missing, silently), and the build context leaves out local state.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const DOCKERFILES = ['infra/docker/api.Dockerfile', 'infra/docker/billing-worker.Dockerfile'];

/** The projects pnpm-workspace.yaml names (`dir/*` globs and plain folders). */
function workspaceProjects(): string[] {
  const block = read('pnpm-workspace.yaml')
    .split(/^packages:\s*$/m)[1]!
    .split(/^\S/m)[0]!;
  const patterns = [...block.matchAll(/^\s*-\s*["']?([^"'\s]+)["']?\s*$/gm)].map((match) => match[1]!);
  return patterns.flatMap((pattern) =>
    pattern.endsWith('/*')
      ? readdirSync(join(root, pattern.slice(0, -2)), { withFileTypes: true })
          .filter(
            (entry) => entry.isDirectory() && existsSync(join(root, pattern.slice(0, -2), entry.name, 'package.json')),
          )
          .map((entry) => `${pattern.slice(0, -2)}/${entry.name}`)
      : [pattern],
  );
}

/** Patch files pnpm applies at install (`patchedDependencies` in pnpm-workspace.yaml or package.json). */
function patchFiles(): string[] {
  const fromWorkspace = [
    ...read('pnpm-workspace.yaml').matchAll(/^\s+["']?[^:\s]+["']?:\s*["']?(patches\/[^"'\s]+)/gm),
  ];
  const manifest = JSON.parse(read('package.json')) as { pnpm?: { patchedDependencies?: Record<string, string> } };
  return [...fromWorkspace.map((match) => match[1]!), ...Object.values(manifest.pnpm?.patchedDependencies ?? {})];
}

/** The `COPY` sources before the first `RUN … pnpm install`. */
function copiedBeforeInstall(dockerfile: string): string[] {
  const text = read(dockerfile).replace(/\\\n/g, ' ');
  const beforeInstall = text.slice(0, text.search(/^RUN .*pnpm install/m));
  return [...beforeInstall.matchAll(/^COPY (?!--from)(.+)$/gm)].flatMap((match) =>
    match[1]!.trim().split(/\s+/).slice(0, -1),
  );
}

describe.each(DOCKERFILES)('%s', (dockerfile) => {
  it('copies every workspace manifest before installing', () => {
    const copied = copiedBeforeInstall(dockerfile);
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml']));
    const projects = workspaceProjects();
    expect(projects).toEqual(expect.arrayContaining(['apps/api', 'packages/membership', 'infra/local', 'bench']));
    for (const project of projects) expect(copied, project).toContain(`${project}/package.json`);
  });

  it('copies every pnpm patch before installing', () => {
    const copied = copiedBeforeInstall(dockerfile);
    for (const patch of patchFiles()) {
      expect(
        copied.some((source) => patch === source || patch.startsWith(source.replace(/\/?$/, '/'))),
        patch,
      ).toBe(true);
    }
  });
});

describe('.dockerignore', () => {
  const ignored = read('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));

  it('leaves out local state: the fetched Node, packed tarballs, the embedded database, modules and builds', () => {
    expect(ignored).toEqual(
      expect.arrayContaining(['.tools', '**/*.tgz', '.data', '**/node_modules', '**/dist', '.git']),
    );
  });
});
