/**
 * @nestegg/contract as a frontend gets it: built, packed, served with the versions a frontend may pick (packed from
 * the workspace by a registry on loopback: no network is needed), installed with npm and pnpm into projects outside
 * the workspace, type-checked with the oldest and newest TypeScript it supports, and run against a live api: in an
 * app on zod 3 at the lowest versions its dependency ranges allow, and in an app with zod 4 of its own (decision C45).
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import {
  allEnded,
  buildAndPack,
  contractDir,
  type Installer,
  lowestVersion,
  type Manifest,
  newProject,
  npmInstall,
  packAlias,
  packLowestDependencies,
  pnpmInstall,
  readJson,
  run,
  TYPESCRIPT,
  TYPESCRIPT_7,
  TYPESCRIPT_LOWEST,
  tscOf,
  versionOf,
  workspaceRoot,
  ZOD_4,
} from './test/consumer/install.js';
import { type LocalRegistry, serveTarballs } from './test/consumer/registry.js';
import { apiTest } from './test/fixtures.js';

const SLOW = 240_000;
const requireFromHere = createRequire(import.meta.url);
const OPENAPI_TOOLING = ['@ts-rest/open-api', '@anatine/zod-openapi', 'openapi3-ts', 'yaml', 'ts-deepmerge'];

const sizeOf = async (path: string): Promise<number> => {
  const info = await stat(path);
  if (!info.isDirectory()) return info.size;
  const entries = await readdir(path);
  const sizes = await Promise.all(entries.map((entry) => sizeOf(join(path, entry))));
  return sizes.reduce((total, size) => total + size, 0);
};

/** The api's address, listening on first use (the app is the file's, shared by both describes). */
async function addressOf(app: FastifyInstance): Promise<string> {
  if (!app.server.listening) return app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

const typeCheck = (project: string, typescript: string, config: string): Promise<string> =>
  run(process.execPath, [tscOf(typescript), '-p', config], project);

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

/**
 * A new app's code: its own form schema in zod 4's API (`z.email()` is not zod 3's) sent through the typed client,
 * whose calls and problem codes must stay typed (each `@ts-expect-error` fails the check if they turned `any`).
 */
const zod4AppScript = (baseUrl: string) => `
import { z } from 'zod';
import {
  authContract,
  type ClientInferRequest,
  type ClientInferResponses,
  initClient,
} from '@nestegg/contract/auth';

const LoginForm = z.object({ email: z.email(), password: z.string().min(1) });
type LoginForm = z.infer<typeof LoginForm>;
type LoginProblem = Exclude<ClientInferResponses<typeof authContract.login>, { status: 200 }>;

function loginMessage(problem: LoginProblem): string {
  switch (problem.body.code) {
    case 'UNAUTHENTICATED':
      return 'Wrong e-mail or password.';
    case 'ACCOUNT_SUSPENDED':
      return 'This account is suspended.';
    default:
      return 'Something went wrong.';
  }
}

// @ts-expect-error a login's 403 is ACCOUNT_SUSPENDED only: the codes narrow per status
const notForbidden: Extract<LoginProblem, { status: 403 }>['body']['code'] = 'UNAUTHENTICATED';
// @ts-expect-error a login's body needs a password
const noPassword: ClientInferRequest<typeof authContract.login>['body'] = { email: 'someone@example.com' };
void [notForbidden, noPassword];

const api = initClient(authContract, { baseUrl: ${JSON.stringify(baseUrl)}, validateResponse: true });
const form: LoginForm = LoginForm.parse({ email: 'nobody@example.com', password: 'not a password' });
const answer = await api.login({ body: form });
if (answer.status === 200) throw new Error(\`logged in with no account: \${answer.body.token}\`);
console.log(JSON.stringify({ status: answer.status, code: answer.body.code, message: loginMessage(answer) }));
`;

/** What a new Vite or Next.js app's tsconfig says (module preserve, bundler resolution, strict), libraries checked. */
const APP_TSCONFIG = {
  compilerOptions: { ...strictOptions, module: 'Preserve', moduleResolution: 'Bundler', noEmit: true },
  files: ['app.ts'],
};

async function writeZod4App(project: string, baseUrl: string): Promise<void> {
  await writeFile(join(project, 'app.ts'), zod4AppScript(baseUrl));
  await writeFile(join(project, 'tsconfig.json'), JSON.stringify(APP_TSCONFIG));
}

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

/** The workspace's TypeScript compiles the Node-style project; the oldest 5.x and TypeScript 7 check the bundler one. */
async function typeCheckAndCompile(project: string): Promise<void> {
  await allEnded([
    typeCheck(project, TYPESCRIPT, 'tsconfig.json'),
    typeCheck(project, TYPESCRIPT_LOWEST, 'tsconfig.bundler.json'),
    typeCheck(project, TYPESCRIPT_7, 'tsconfig.bundler.json'),
  ]);
}

type Esbuild = {
  build(options: Record<string, unknown>): Promise<{ outputFiles: Array<{ contents: Uint8Array; text: string }> }>;
};
/** esbuild as tsup ships it (the api does not depend on esbuild itself). */
const esbuild = createRequire(requireFromHere.resolve('tsup'))('esbuild') as Esbuild;

/** Minified browser bundle of `code`, resolved from the consumer project's node_modules. */
async function bundle(
  project: string,
  code: string,
  withDependencies: boolean,
): Promise<{ text: string; bytes: number }> {
  const result = await esbuild.build({
    stdin: { contents: code, resolveDir: project, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
    external: withDependencies ? [] : ['zod', '@ts-rest/core'],
  });
  const [output] = result.outputFiles;
  return { text: output!.text, bytes: output!.contents.byteLength };
}

/** The app bundled as its bundler would (each import resolved from where it is imported), written to `app.mjs`. */
async function bundleApp(project: string): Promise<string> {
  const result = await esbuild.build({
    entryPoints: [join(project, 'app.ts')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    write: false,
    logLevel: 'silent',
  });
  const file = join(project, 'app.mjs');
  await writeFile(file, result.outputFiles[0]!.text);
  return file;
}

const ONLY_AUTH = "import { authContract } from '@nestegg/contract/auth'; console.log(authContract);";
const AUTH_FROM_ROOT = "import { authContract } from '@nestegg/contract'; console.log(authContract);";
const WHOLE_CONTRACT = "import { contract } from '@nestegg/contract'; console.log(contract);";

const majorOf = async (project: string, folder: string): Promise<string> =>
  (await readJson<{ version: string }>(join(project, folder, 'package.json'))).version.split('.')[0]!;

const test = apiTest();

let root = '';
let tarball = '';
let registry: LocalRegistry | undefined;
const installer = (): Installer => ({ registry: registry!, root });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'nestegg-consumer-'));
  const packs = join(root, 'packs');
  await mkdir(packs);
  const [contract, lowest, zod4] = await allEnded([
    buildAndPack(join(root, 'contract')),
    packLowestDependencies(packs),
    packAlias(ZOD_4, packs),
  ]);
  tarball = contract;
  registry = await serveTarballs([tarball, ...lowest, zod4]);
}, SLOW);

afterAll(async () => {
  await registry?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('@nestegg/contract as a frontend on zod 3 installs it (the lowest versions it allows)', () => {
  const project = () => join(root, 'zod-3');
  const installed = () => join(project(), 'node_modules/@nestegg/contract');

  beforeAll(async () => {
    const { dependencies } = await readJson<Manifest>(join(contractDir, 'package.json'));
    await newProject(project());
    await npmInstall(installer(), project(), ['@nestegg/contract', `zod@${lowestVersion(dependencies.zod!)}`]);
  }, SLOW);

  test('ships a manifest a registry accepts, whose exports point only at files it ships', async () => {
    const text = await readFile(join(installed(), 'package.json'), 'utf8');
    expect(text).not.toMatch(/@nestegg\/source|workspace:|catalog:/);
    const manifest = JSON.parse(text) as Manifest;
    expect(manifest.private).toBeUndefined();
    expect(manifest.peerDependencies).toBeUndefined();
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['@ts-rest/core', 'zod']);
    const targets = Object.values(manifest.exports).flatMap((target) =>
      typeof target === 'string' ? [target] : Object.values(target),
    );
    expect(targets.length).toBeGreaterThan(10);
    for (const target of targets) await expect(stat(join(installed(), target)), target).resolves.toBeTruthy();
    console.info(
      `@nestegg/contract: tarball ${await sizeOf(tarball)} bytes, installed ${await sizeOf(installed())} bytes`,
    );
  });

  test('brings only itself and its dependencies, sharing the app’s zod, and no OpenAPI tooling', async () => {
    const modules = join(project(), 'node_modules');
    for (const name of OPENAPI_TOOLING) await expect(stat(join(modules, name)), name).rejects.toThrow();
    const top = (await readdir(modules)).filter((entry) => !entry.startsWith('.'));
    expect(top.sort()).toEqual(['@nestegg', '@ts-rest', 'zod']);
    // The app's zod satisfies the package's range: one copy, none nested.
    await expect(stat(join(installed(), 'node_modules'))).rejects.toThrow();
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
    'type-checks a strict client (TypeScript 5.x nodenext; the oldest 5.x and 7 bundler) that runs against the api',
    async ({ app }) => {
      const address = await addressOf(app);
      await writeTsConfigs(project());
      await writeFile(join(project(), 'client.ts'), clientScript(address));
      await typeCheckAndCompile(project());
      const output = JSON.parse(await run(process.execPath, ['out/client.js'], project())) as Record<string, unknown>;
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
      expect(await writeReadmeExamples(project())).toBeGreaterThanOrEqual(4);
      await typeCheck(project(), TYPESCRIPT, 'tsconfig.readme.json');
    },
    SLOW,
  );

  test('names in its README the TypeScript and zod versions this file checks', async () => {
    const readme = await readFile(join(installed(), 'README.md'), 'utf8');
    const { dependencies } = await readJson<Manifest>(join(installed(), 'package.json'));
    const [lowest, seven, zod4] = await Promise.all([
      versionOf(TYPESCRIPT_LOWEST),
      versionOf(TYPESCRIPT_7),
      versionOf(ZOD_4),
    ]);
    const typescript = readme.match(/^\| TypeScript \| (\d+\.\d+) or later in 5\.x, and (\d+)\.x/m);
    expect(typescript?.slice(1)).toEqual([lowest.split('.').slice(0, 2).join('.'), seven.split('.')[0]]);
    expect(readme).toMatch(new RegExp(`^\\| zod in your app \\| none, 3\\.x or ${zod4.split('.')[0]}\\.x`, 'm'));
    expect(readme).toContain(`\`${dependencies.zod}\``);
    expect(readme).toContain(`\`${dependencies['@ts-rest/core']}\``);
  });

  test('says where `pack` writes the tarball, a place git ignores', async () => {
    const readme = await readFile(join(installed(), 'README.md'), 'utf8');
    expect(readme).toContain('`pnpm --filter @nestegg/contract pack`');
    expect(readme).toMatch(/repository's root, which git ignores/);
    // Where pnpm writes it: the workspace root with --filter, the package's folder when run inside it.
    for (const folder of [workspaceRoot, contractDir]) {
      await run('git', ['check-ignore', '--quiet', join(folder, basename(tarball))], workspaceRoot);
    }
  });

  test('tells clients to ignore answer fields they do not know, and that requests are strict', async () => {
    const readme = await readFile(join(installed(), 'README.md'), 'utf8');
    expect(readme).toMatch(/ignore fields you do not know/);
    expect(readme).toMatch(/400 `VALIDATION_FAILED`[^.]*names? (it|the field)/);
  });

  test('shows zod descriptions as the documentation of the exported types (C37)', async () => {
    const declarations = await readFile(join(installed(), 'dist/ledger.d.ts'), 'utf8');
    expect(declarations).toContain('/** Whole local-currency units */');
    expect(documentationOf(project(), '@nestegg/contract/ledger', 'Entry', 'amount')).toBe(
      'Whole local-currency units',
    );
    expect(documentationOf(project(), '@nestegg/contract/ledger', 'Entry', 'pending')).toMatch(/card notification/);
  });

  test('bundles one area in a fraction of the whole contract', async () => {
    const onlyAuth = await bundle(project(), ONLY_AUTH, false);
    const authFromRoot = await bundle(project(), AUTH_FROM_ROOT, false);
    const whole = await bundle(project(), WHOLE_CONTRACT, false);
    const withDependencies = {
      onlyAuth: await bundle(project(), ONLY_AUTH, true),
      whole: await bundle(project(), WHOLE_CONTRACT, true),
    };
    console.info(
      `minified bundles without dependencies: auth subpath ${onlyAuth.bytes} B, auth from the root ${authFromRoot.bytes} B, ` +
        `whole contract ${whole.bytes} B; with zod and @ts-rest/core: ${withDependencies.onlyAuth.bytes} B vs ${withDependencies.whole.bytes} B`,
    );
    expect(onlyAuth.text).toContain('/api/auth/login');
    expect(onlyAuth.text).not.toMatch(/\/api\/(account|board|billing|admin)\//);
    expect(onlyAuth.bytes * 4).toBeLessThan(whole.bytes);
    // sideEffects: false and pure root registries let a bundler drop the other areas even from the root.
    expect(authFromRoot.bytes * 4).toBeLessThan(whole.bytes);
  });
});

describe('@nestegg/contract in a new app with zod 4 of its own', () => {
  const npmProject = () => join(root, 'zod-4-npm');
  const pnpmProject = () => join(root, 'zod-4-pnpm');

  beforeAll(async () => {
    await Promise.all([newProject(npmProject()), newProject(pnpmProject())]);
    // A new app's zod is the latest (4 here), then it adds the client; no version named, no force flag. Named in one
    // command (`npm install @nestegg/contract zod`), npm would pick the zod 3 the package uses for the app too.
    const withNpm = async () => {
      await npmInstall(installer(), npmProject(), ['zod']);
      await npmInstall(installer(), npmProject(), ['@nestegg/contract']);
    };
    await allEnded([
      withNpm(),
      pnpmInstall(installer(), pnpmProject(), { '@nestegg/contract': 'latest', zod: 'latest' }),
    ]);
  }, SLOW);

  test('keeps the app’s zod 4 on top; npm nests the package’s zod 3 under it, in a tree it finds valid', async () => {
    expect(await majorOf(npmProject(), 'node_modules/zod')).toBe('4');
    expect(await majorOf(pnpmProject(), 'node_modules/zod')).toBe('4');
    expect(await majorOf(npmProject(), 'node_modules/@nestegg/contract/node_modules/zod')).toBe('3');
    await run('npm', ['ls', '--all'], npmProject());
  });

  test(
    'type-checks the app with TypeScript 5.x and 7 (npm) and 7 (pnpm), and runs it bundled against the api',
    async ({ app }) => {
      const address = await addressOf(app);
      await Promise.all([writeZod4App(npmProject(), address), writeZod4App(pnpmProject(), address)]);
      await Promise.all([
        typeCheck(npmProject(), TYPESCRIPT, 'tsconfig.json'),
        typeCheck(npmProject(), TYPESCRIPT_7, 'tsconfig.json'),
        typeCheck(pnpmProject(), TYPESCRIPT_7, 'tsconfig.json'),
      ]);
      const output = JSON.parse(await run(process.execPath, [await bundleApp(npmProject())], npmProject()));
      expect(output).toEqual({ status: 401, code: 'UNAUTHENTICATED', message: 'Wrong e-mail or password.' });
    },
    SLOW,
  );
});
