/**
 * How the contract's consumer test gets the package into a frontend project: packed from the workspace, served with
 * the versions a frontend may pick by a registry on loopback, installed by npm or pnpm as a frontend runs them.
 *
 * The api's devDependencies hold, under aliases, everything the projects install besides the contract, and the
 * compilers that check them, so `pnpm install` brings them and the test needs no network (decisions DL1, C45):
 * `consumer-lowest-zod` and `consumer-lowest-ts-rest-core` at the lowest versions the contract's dependency ranges
 * allow, `consumer-zod-4` (an app's own zod 4), `consumer-lowest-typescript` (the oldest TypeScript the README names)
 * and `consumer-typescript-7`.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { LocalRegistry } from './registry.js';

export const workspaceRoot = fileURLToPath(new URL('../../../../../', import.meta.url));
export const contractDir = join(workspaceRoot, 'packages/contract');
const requireFromApi = createRequire(import.meta.url);

export const ZOD_4 = 'consumer-zod-4';
export const TYPESCRIPT_LOWEST = 'consumer-lowest-typescript';
export const TYPESCRIPT_7 = 'consumer-typescript-7';
/** The workspace's own TypeScript (5.x). */
export const TYPESCRIPT = 'typescript';

export type Manifest = {
  private?: boolean;
  exports: Record<string, string | Record<string, string>>;
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

const execFileAsync = promisify(execFile);

/** Runs a command; pnpm's npm_* variables are not passed on, so npm behaves as on a frontend machine. */
export const run = async (command: string, args: string[], cwd: string): Promise<string> => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  try {
    const { stdout } = await execFileAsync(command, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout}\n${stderr}`);
  }
};

export const readJson = async <T>(file: string): Promise<T> => JSON.parse(await readFile(file, 'utf8')) as T;

const manifestPathOf = (alias: string): string => requireFromApi.resolve(`${alias}/package.json`);

/** The version of a package the api depends on (an alias or the workspace's own). */
export const versionOf = async (alias: string): Promise<string> =>
  (await readJson<{ version: string }>(manifestPathOf(alias))).version;

/** The `tsc` of a TypeScript the api depends on; TypeScript 7's package exports no `bin/tsc`, so it is found by path. */
export const tscOf = (alias: string): string => join(dirname(manifestPathOf(alias)), 'bin/tsc');

/**
 * `Promise.all` that reports a failure only once every step has ended, so that no step still writes into a folder
 * the test removes after it.
 */
export async function allEnded<T extends readonly unknown[]>(
  steps: [...{ [K in keyof T]: Promise<T[K]> }],
): Promise<T> {
  const results = await Promise.allSettled(steps);
  const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failure) throw failure.reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** Builds (`prepack`, what a publish runs too) and packs the contract into an empty `destination`. */
export async function buildAndPack(destination: string): Promise<string> {
  await mkdir(destination, { recursive: true });
  await run('pnpm', ['pack', '--pack-destination', destination], contractDir);
  const tarball = (await readdir(destination)).find((file) => file.endsWith('.tgz'));
  if (!tarball) throw new Error('pnpm pack wrote no tarball');
  return join(destination, tarball);
}

/** The lowest version a dependency range allows: what a frontend on the oldest supported versions has. */
export const lowestVersion = (range: string): string => {
  const version = range.replace(/^[\^~]/, '');
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`unexpected dependency range ${range}`);
  return version;
};

const lowestAlias = (name: string): string => `consumer-lowest-${name.replace(/^@/, '').replace(/\//g, '-')}`;

export async function packAlias(alias: string, destination: string): Promise<string> {
  // npm cannot pack a folder inside pnpm's store ("Exit handler never called"): pack a copy.
  const copy = join(destination, alias);
  await cp(await realpath(dirname(manifestPathOf(alias))), copy, { recursive: true });
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', destination], copy);
  const [tarball] = JSON.parse(packed) as Array<{ filename: string }>;
  if (!tarball) throw new Error(`npm pack wrote no tarball for ${alias}`);
  return join(destination, tarball.filename);
}

/** Each dependency of the contract at the lowest version its range allows, checked against the alias holding it. */
export async function packLowestDependencies(destination: string): Promise<string[]> {
  const { dependencies } = await readJson<Manifest>(join(contractDir, 'package.json'));
  const packs = Object.entries(dependencies).map(async ([name, range]) => {
    const alias = lowestAlias(name);
    const version = await versionOf(alias);
    if (version !== lowestVersion(range)) {
      throw new Error(
        `apps/api's devDependency ${alias} is ${name}@${version}; the contract's range ${range} starts at ` +
          `${lowestVersion(range)}: set it to "npm:${name}@${lowestVersion(range)}"`,
      );
    }
    return packAlias(alias, destination);
  });
  return Promise.all(packs);
}

/** Where installs go: the registry, and caches and a store of their own under `root` (none of the user's). */
export type Installer = { registry: LocalRegistry; root: string };

/** The registry's address; a proxy configured for the real registry is not asked for it. */
const registryOptions = (registry: LocalRegistry): string[] => [`--registry=${registry.url}`, '--noproxy=127.0.0.1'];

/** An empty app: a folder with a package.json. */
export async function newProject(project: string): Promise<void> {
  await mkdir(project, { recursive: true });
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
}

/** `npm install <specs>` in `project`, with no force flag and any peer conflict an error. */
export async function npmInstall({ registry, root }: Installer, project: string, specs: string[]): Promise<void> {
  const options = [...registryOptions(registry), `--cache=${join(root, 'npm-cache')}`, '--no-audit', '--no-fund'];
  const strict = ['--strict-peer-deps', '--no-legacy-peer-deps', '--loglevel=error'];
  await run('npm', ['install', ...options, ...strict, ...specs], project);
}

/**
 * `pnpm install` of `dependencies` (name → range or tag) written into `project`'s manifest, an unmet peer an error
 * (`pnpm add` only warns about one, whatever `strict-peer-dependencies` says).
 */
export async function pnpmInstall(
  { registry, root }: Installer,
  project: string,
  dependencies: Record<string, string>,
): Promise<void> {
  const manifest = await readJson<Record<string, unknown>>(join(project, 'package.json'));
  await writeFile(join(project, 'package.json'), JSON.stringify({ ...manifest, dependencies }));
  const stores = [`--store-dir=${join(root, 'pnpm-store')}`, `--cache-dir=${join(root, 'pnpm-cache')}`];
  await run('pnpm', ['install', ...registryOptions(registry), ...stores, '--strict-peer-dependencies'], project);
}
