/**
 * @nestegg/contract as a frontend gets it: built, packed, installed with npm (with its peers at the
 * lowest versions it declares, packed from the workspace: no registry is needed) into a project outside
 * the workspace, type-checked as a strict client, and run against a live api.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { apiTest } from './test/fixtures.js';

const SLOW = 240_000;
const workspaceRoot = fileURLToPath(new URL('../../../', import.meta.url));
const contractDir = join(workspaceRoot, 'packages/contract');
const requireFromHere = createRequire(import.meta.url);
const OPENAPI_TOOLING = ['@ts-rest/open-api', '@anatine/zod-openapi', 'openapi3-ts', 'yaml', 'ts-deepmerge'];

type Manifest = {
  private?: boolean;
  exports: Record<string, string | Record<string, string>>;
  peerDependencies: Record<string, string>;
  dependencies?: Record<string, string>;
};

const execFileAsync = promisify(execFile);

/** Runs a command; pnpm's npm_* variables are not passed on, so npm behaves as on a frontend machine. */
const run = async (command: string, args: string[], cwd: string): Promise<string> => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  try {
    const { stdout } = await execFileAsync(command, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout}\n${stderr}`);
  }
};

const readJson = async <T>(file: string): Promise<T> => JSON.parse(await readFile(file, 'utf8')) as T;

const sizeOf = async (path: string): Promise<number> => {
  const info = await stat(path);
  if (!info.isDirectory()) return info.size;
  const entries = await readdir(path);
  const sizes = await Promise.all(entries.map((entry) => sizeOf(join(path, entry))));
  return sizes.reduce((total, size) => total + size, 0);
};

async function buildAndPack(destination: string): Promise<string> {
  // `prepack` builds it (what a publish does too).
  await run('pnpm', ['pack', '--pack-destination', destination], contractDir);
  const tarball = (await readdir(destination)).find((file) => file.endsWith('.tgz'));
  if (!tarball) throw new Error('pnpm pack wrote no tarball');
  return join(destination, tarball);
}

/** The lowest version a peer range allows: what a frontend on the oldest supported versions has. */
const lowestVersion = (range: string): string => {
  const version = range.replace(/^[\^~]/, '');
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`unexpected peer range ${range}`);
  return version;
};

/**
 * The api's devDependencies hold each peer at its lowest version under an alias (`consumer-peer-zod`
 * for `zod`, `consumer-peer-ts-rest-core` for `@ts-rest/core`), so pnpm's install brings them and this
 * test needs no registry: it packs them from the workspace and npm installs the tarballs offline.
 */
const peerAlias = (name: string): string => `consumer-peer-${name.replace(/^@/, '').replace(/\//g, '-')}`;

async function packPeer(name: string, range: string, destination: string): Promise<string> {
  const alias = peerAlias(name);
  const manifestPath = requireFromHere.resolve(`${alias}/package.json`);
  const { version } = await readJson<{ version: string }>(manifestPath);
  if (version !== lowestVersion(range)) {
    throw new Error(
      `apps/api's devDependency ${alias} is ${name}@${version}; the contract's peer range ${range} starts at ` +
        `${lowestVersion(range)}: set it to "npm:${name}@${lowestVersion(range)}"`,
    );
  }
  // npm cannot pack a folder inside pnpm's store ("Exit handler never called"): pack a copy.
  const copy = join(destination, alias);
  await cp(await realpath(dirname(manifestPath)), copy, { recursive: true });
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', destination], copy);
  const [tarball] = JSON.parse(packed) as Array<{ filename: string }>;
  if (!tarball) throw new Error(`npm pack wrote no tarball for ${alias}`);
  return join(destination, tarball.filename);
}

async function installWithPeers(project: string, tarball: string): Promise<void> {
  const { peerDependencies } = await readJson<Manifest>(join(contractDir, 'package.json'));
  const peers = await Promise.all(
    Object.entries(peerDependencies).map(([name, range]) => packPeer(name, range, dirname(tarball))),
  );
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', tarball, ...peers], project);
}

const strictOptions = {
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  // The package's declaration files are checked too: a broken .d.ts must fail here.
  skipLibCheck: false,
  target: 'ES2022',
  lib: ['ES2022', 'DOM'],
  types: [],
  verbatimModuleSyntax: true,
};

/** A Node-style project (nodenext, compiled to out/) and a bundler-style one (type check only). */
async function writeTsConfigs(project: string): Promise<void> {
  const nodenext = { ...strictOptions, module: 'NodeNext', moduleResolution: 'NodeNext', outDir: 'out' };
  const bundler = { ...strictOptions, module: 'ESNext', moduleResolution: 'Bundler', noEmit: true };
  await writeFile(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: nodenext, files: ['client.ts'] }));
  await writeFile(
    join(project, 'tsconfig.bundler.json'),
    JSON.stringify({ compilerOptions: bundler, files: ['client.ts'] }),
  );
}

/** The client a frontend would write: one area, the typed client, and a switch over the problem code. */
const clientScript = (baseUrl: string) => `
import { authContract, initClient, type Problem, type ProblemCode } from '@nestegg/contract/auth';

const baseUrl = ${JSON.stringify(baseUrl)};
const email = \`consumer-\${Date.now()}@example.com\`;
const password = 'correct horse battery staple';

function loginMessage(code: ProblemCode): string {
  switch (code) {
    case 'UNAUTHENTICATED':
      return 'Wrong e-mail or password.';
    case 'RATE_LIMITED':
      return 'Too many attempts: wait a moment.';
    case 'ACCOUNT_SUSPENDED':
      return 'This account is suspended.';
    case 'VALIDATION_FAILED':
    case 'MALFORMED_JSON':
      return 'Check the form.';
    default:
      return \`Something went wrong (\${code}).\`;
  }
}

// @ts-expect-error ProblemCode is a closed union, not any string
const notACode: ProblemCode = 'NOT_A_CODE';
void notACode;

const anonymous = initClient(authContract, { baseUrl, validateResponse: true });

const signup = await anonymous.signup({ body: { email, password, displayName: 'Consumer' } });
if (signup.status !== 201) throw new Error(\`sign-up answered \${signup.status}\`);
const login = await anonymous.login({ body: { email, password } });
if (login.status !== 200) throw new Error(\`login answered \${login.status}\`);

const member = initClient(authContract, {
  baseUrl,
  validateResponse: true,
  baseHeaders: { authorization: \`Bearer \${login.body.token}\` },
});
const profile = await member.getProfile();
if (profile.status !== 200) throw new Error(\`profile answered \${profile.status}\`);

const wrong = await anonymous.login({ body: { email, password: 'not the password' } });
if (wrong.status !== 401) throw new Error(\`wrong login answered \${wrong.status}\`);
const problem: Problem = wrong.body;

console.log(
  JSON.stringify({
    signedUp: signup.body.email,
    profile: { email: profile.body.email, plan: profile.body.plan },
    wrongLogin: problem.code,
    message: loginMessage(problem.code),
  }),
);
`;

/** What the README's examples use without defining: the app's own values and functions. */
const README_PLACEHOLDERS = `declare global {
  const email: string;
  const password: string;
  function saveToken(token: string): void;
  function showError(code: string): void;
}
export {};
`;

/** `import { a, type B } from 'm';` (one line or several): the only import form the README's examples use. */
const IMPORT = /^import (type )?\{([^}]*)\} from '([^']+)';\n/gm;

/**
 * The TypeScript blocks of the README as the package ships it, read in order as one module (a later block may use
 * what an earlier one defined, as a reader does): their imports merged, a value import winning over a type-only one.
 */
async function writeReadmeExamples(project: string): Promise<number> {
  const readme = await readFile(join(project, 'node_modules/@nestegg/contract/README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```(?:ts|typescript)\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const imports = new Map<string, Map<string, boolean>>();
  const importedFrom = new Map<string, string>();
  const merge = (typeOnly: boolean, names: string, from: string): void => {
    const merged = imports.get(from) ?? new Map<string, boolean>();
    for (const raw of names.split(',').map((name) => name.trim())) {
      const name = raw.replace(/^type /, '');
      // The area entries re-export the same essentials (`initClient` from /auth and /ledger): import a name once.
      if (!name || (importedFrom.get(name) ?? from) !== from) continue;
      importedFrom.set(name, from);
      merged.set(name, (merged.get(name) ?? true) && (typeOnly || raw.startsWith('type ')));
    }
    imports.set(from, merged);
  };
  const bodies = blocks.map((block) =>
    block.replace(IMPORT, (_, typeOnly: string | undefined, names: string, from: string) => {
      merge(Boolean(typeOnly), names, from);
      return '';
    }),
  );
  if (bodies.some((body) => /^import /m.test(body)))
    throw new Error('a README example has an import form not merged here');
  const header = [...imports].map(
    ([from, names]) =>
      `import { ${[...names].map(([name, isType]) => (isType ? `type ${name}` : name)).join(', ')} } from '${from}';`,
  );
  await writeFile(join(project, 'readme.ts'), [...header, ...bodies].join('\n'));
  await writeFile(join(project, 'readme-placeholders.d.ts'), README_PLACEHOLDERS);
  const options = { ...strictOptions, module: 'ESNext', moduleResolution: 'Bundler', noEmit: true };
  const config = { compilerOptions: options, files: ['readme-placeholders.d.ts', 'readme.ts'] };
  await writeFile(join(project, 'tsconfig.readme.json'), JSON.stringify(config));
  return blocks.length;
}

type TypeScript = typeof import('typescript');
/** What an editor shows for `Type[property]` imported from `entry`: the documentation TypeScript finds for it. */
function documentationOf(project: string, entry: string, type: string, property: string): string {
  const ts = requireFromHere('typescript') as TypeScript;
  const file = join(project, 'hover.ts');
  const source = `import type { ${type} } from '${entry}';\nexport declare const value: ${type};\n`;
  const options = { strict: true, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler };
  const host = ts.createCompilerHost(options);
  const readSource = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version) =>
    name === file ? ts.createSourceFile(name, source, version) : readSource(name, version);
  const program = ts.createProgram([file], options, host);
  const checker = program.getTypeChecker();
  const [value] = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)!)!);
  const member = checker.getTypeOfSymbol(value!).getProperty(property);
  return ts.displayPartsToString(member?.getDocumentationComment(checker));
}

async function typeCheckAndCompile(project: string): Promise<void> {
  const tsc = requireFromHere.resolve('typescript/bin/tsc');
  await Promise.all([
    run(process.execPath, [tsc, '-p', 'tsconfig.json'], project),
    run(process.execPath, [tsc, '-p', 'tsconfig.bundler.json'], project),
  ]);
}

type Esbuild = {
  build(options: Record<string, unknown>): Promise<{ outputFiles: Array<{ contents: Uint8Array; text: string }> }>;
};
/** esbuild as tsup ships it (the api does not depend on esbuild itself). */
const esbuild = createRequire(requireFromHere.resolve('tsup'))('esbuild') as Esbuild;

/** Minified browser bundle of `code`, resolved from the consumer project's node_modules. */
async function bundle(project: string, code: string, withPeers: boolean): Promise<{ text: string; bytes: number }> {
  const result = await esbuild.build({
    stdin: { contents: code, resolveDir: project, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
    external: withPeers ? [] : ['zod', '@ts-rest/core'],
  });
  const [output] = result.outputFiles;
  return { text: output!.text, bytes: output!.contents.byteLength };
}

const ONLY_AUTH = "import { authContract } from '@nestegg/contract/auth'; console.log(authContract);";
const AUTH_FROM_ROOT = "import { authContract } from '@nestegg/contract'; console.log(authContract);";
const WHOLE_CONTRACT = "import { contract } from '@nestegg/contract'; console.log(contract);";

const test = apiTest();

describe('@nestegg/contract as a frontend installs it', () => {
  let project = '';
  let tarball = '';
  const installed = () => join(project, 'node_modules/@nestegg/contract');

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'nestegg-consumer-'));
    const packs = join(project, 'packs');
    await mkdir(packs);
    tarball = await buildAndPack(packs);
    await installWithPeers(project, tarball);
  }, SLOW);

  afterAll(async () => {
    if (project) await rm(project, { recursive: true, force: true });
  });

  test('ships a manifest a registry accepts, whose exports point only at files it ships', async () => {
    const text = await readFile(join(installed(), 'package.json'), 'utf8');
    expect(text).not.toMatch(/@nestegg\/source|workspace:|catalog:/);
    const manifest = JSON.parse(text) as Manifest;
    expect(manifest.private).toBeUndefined();
    expect(manifest.dependencies).toBeUndefined();
    const targets = Object.values(manifest.exports).flatMap((target) =>
      typeof target === 'string' ? [target] : Object.values(target),
    );
    expect(targets.length).toBeGreaterThan(10);
    for (const target of targets) await expect(stat(join(installed(), target)), target).resolves.toBeTruthy();
    console.info(
      `@nestegg/contract: tarball ${await sizeOf(tarball)} bytes, installed ${await sizeOf(installed())} bytes`,
    );
  });

  test('brings only itself and its peers, no OpenAPI tooling', async () => {
    const modules = join(project, 'node_modules');
    for (const name of OPENAPI_TOOLING) await expect(stat(join(modules, name)), name).rejects.toThrow();
    const top = (await readdir(modules)).filter((entry) => !entry.startsWith('.'));
    expect(top.sort()).toEqual(['@nestegg', '@ts-rest', 'zod']);
    for (const file of await readdir(join(installed(), 'dist'))) {
      if (!file.endsWith('.js')) continue;
      const source = await readFile(join(installed(), 'dist', file), 'utf8');
      // An import's `from "pkg"`; not a string that merely holds the word (`path: ["from"]`, `…restore from",`).
      const packages = [...source.matchAll(/(?<!["\w])from\s*"([^".,\s][^",\s]*)"/g)].map((match) => match[1]);
      expect(
        packages.filter((name) => name !== 'zod' && name !== '@ts-rest/core'),
        file,
      ).toEqual([]);
    }
  });

  test(
    'type-checks a strict client (nodenext and bundler resolution) that runs against the api',
    async ({ app }) => {
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      await writeTsConfigs(project);
      await writeFile(join(project, 'client.ts'), clientScript(address));
      await typeCheckAndCompile(project);
      const output = JSON.parse(await run(process.execPath, ['out/client.js'], project)) as Record<string, unknown>;
      expect(output).toEqual({
        signedUp: expect.stringMatching(/^consumer-\d+@example\.com$/),
        profile: { email: output.signedUp, plan: 'FREE' },
        wrongLogin: 'UNAUTHENTICATED',
        message: 'Wrong e-mail or password.',
      });
    },
    SLOW,
  );

  test(
    'compiles every TypeScript example of the README it ships, which names no workspace file',
    async () => {
      const readme = await readFile(join(installed(), 'README.md'), 'utf8');
      expect(readme).not.toMatch(/\b(src|test|scripts|docs|apps|packages)\/[\w*./-]+/);
      expect(await writeReadmeExamples(project)).toBeGreaterThanOrEqual(4);
      const tsc = requireFromHere.resolve('typescript/bin/tsc');
      await run(process.execPath, [tsc, '-p', 'tsconfig.readme.json'], project);
    },
    SLOW,
  );

  test('shows zod descriptions as the documentation of the exported types (C37)', async () => {
    const declarations = await readFile(join(installed(), 'dist/ledger.d.ts'), 'utf8');
    expect(declarations).toContain('/** Whole local-currency units */');
    expect(documentationOf(project, '@nestegg/contract/ledger', 'Entry', 'amount')).toBe('Whole local-currency units');
    expect(documentationOf(project, '@nestegg/contract/ledger', 'Entry', 'pending')).toMatch(/card notification/);
  });

  test('bundles one area in a fraction of the whole contract', async () => {
    const onlyAuth = await bundle(project, ONLY_AUTH, false);
    const authFromRoot = await bundle(project, AUTH_FROM_ROOT, false);
    const whole = await bundle(project, WHOLE_CONTRACT, false);
    const withPeers = {
      onlyAuth: await bundle(project, ONLY_AUTH, true),
      whole: await bundle(project, WHOLE_CONTRACT, true),
    };
    console.info(
      `minified bundles without peers: auth subpath ${onlyAuth.bytes} B, auth from the root ${authFromRoot.bytes} B, ` +
        `whole contract ${whole.bytes} B; with zod and @ts-rest/core: ${withPeers.onlyAuth.bytes} B vs ${withPeers.whole.bytes} B`,
    );
    expect(onlyAuth.text).toContain('/api/auth/login');
    expect(onlyAuth.text).not.toMatch(/\/api\/(account|board|billing|admin)\//);
    expect(onlyAuth.bytes * 4).toBeLessThan(whole.bytes);
    // sideEffects: false and pure root registries let a bundler drop the other areas even from the root.
    expect(authFromRoot.bytes * 4).toBeLessThan(whole.bytes);
  });
});
