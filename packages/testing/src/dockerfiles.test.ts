/**
 * The images build from what the repository holds (no Docker daemon runs here, so this reads the files):
 * every workspace project's manifest and every pnpm patch reach the first `pnpm install` (pnpm skips a
 * lockfile importer whose package.json is missing, silently), the build context leaves out local state, and the
 * containers listen on every interface while the apps' own default is loopback (decision I7).
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

/** The runtime stage's `ENV` settings. */
function runtimeEnv(dockerfile: string): Record<string, string> {
  const text = read(dockerfile).replace(/\\\n/g, ' ');
  const runtime = text.slice(text.search(/^FROM \S+ AS runtime$/m));
  // `KEY=value` or `KEY="a value with spaces"`.
  const pairs = [...runtime.matchAll(/^ENV (.+)$/gm)].flatMap((match) => [
    ...match[1]!.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g),
  ]);
  return Object.fromEntries(pairs.map(([, name, value]) => [name!, value!.replace(/^"(.*)"$/, '$1')]));
}

/** The runtime stage's `RUN` commands, continuation lines joined. */
function runtimeRuns(dockerfile: string): string[] {
  const text = read(dockerfile).replace(/\\\n/g, ' ');
  const runtime = text.slice(text.search(/^FROM \S+ AS runtime$/m));
  return [...runtime.matchAll(/^RUN (.+)$/gm)].map((match) => match[1]!);
}

/** A service's block of infra/compose.yaml, up to the next service or top-level key. */
function composeService(name: string): string {
  const text = read('infra/compose.yaml');
  const start = text.search(new RegExp(`^ {2}${name}:`, 'm'));
  expect(start, name).toBeGreaterThanOrEqual(0);
  const body = text.slice(text.indexOf('\n', start) + 1);
  const end = body.search(/^ {0,2}\S/m);
  return end === -1 ? body : body.slice(0, end);
}

describe('listeners in containers', () => {
  it.each([
    ['infra/docker/api.Dockerfile', 'HOST'],
    ['infra/docker/billing-worker.Dockerfile', 'WORKER_HOST'],
  ])('%s sets %s=0.0.0.0 in its runtime stage', (dockerfile, variable) => {
    expect(runtimeEnv(dockerfile)).toMatchObject({ NODE_ENV: 'production', [variable]: '0.0.0.0' });
  });

  it.each([
    ['api', 'HOST'],
    ['api-cluster', 'HOST'],
    ['billing-worker', 'WORKER_HOST'],
  ])('compose sets %s: %s=0.0.0.0 over infra/.env', (service, variable) => {
    expect(composeService(service)).toMatch(new RegExp(`^ +${variable}: "?0\\.0\\.0\\.0"?$`, 'm'));
  });
});

describe('memory per replica (decisions DL21, DL22)', () => {
  const dockerfile = 'infra/docker/api.Dockerfile';

  it('runs the api on jemalloc, installed in the runtime stage at one path on every architecture', () => {
    const env = runtimeEnv(dockerfile);
    expect(env.LD_PRELOAD).toBe('/usr/local/lib/libjemalloc.so.2');
    const runs = runtimeRuns(dockerfile);
    const install = runs.find((run) => run.includes('libjemalloc2'));
    expect(install, 'apt-get install libjemalloc2 in the runtime stage').toMatch(/apt-get install .*libjemalloc2/);
    expect(install).toContain(`"/usr/lib/$(uname -m)-linux-gnu/libjemalloc.so.2" ${env.LD_PRELOAD}`);
    // The loader only warns when a preload is missing: the build checks that jemalloc is mapped.
    expect(runs.some((run) => run.includes('/proc/self/maps') && run.includes('libjemalloc'))).toBe(true);
  });

  it("caps V8's young generation (semi-spaces of 16 MB) and its old generation (256 MB) for the image's node", () => {
    expect(runtimeEnv(dockerfile).NODE_OPTIONS?.split(/\s+/)).toEqual(
      expect.arrayContaining(['--max-semi-space-size=16', '--max-old-space-size=256']),
    );
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
