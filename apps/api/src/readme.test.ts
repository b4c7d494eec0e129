/**
 * The README (issue 36): it fits a screen, its links lead to files that exist, and its five-minute quickstart
 * works as written. The quickstart's shell block runs under bash with the machine's curl and jq; its
 * TypeScript block is type-checked (strict) and run with tsx, as a frontend project that installed
 * `@nestegg/contract` would. Both run against an api configured as `npm start` configures it (billing test
 * mode and the launcher's sample products) and listening on a real port. Each request the blocks send is
 * recorded (a curl that writes down what the real curl did; a fetch that does the same), so a step that
 * fails shows here with its status and body. The launcher itself (`npm start`'s processes, ports and lines) is
 * infra/local/start.test.mjs's subject (decision DL14).
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiTest } from './test/fixtures.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const requireFromHere = createRequire(import.meta.url);
const execFileAsync = promisify(execFile);
const SLOW = 180_000;

/** What `npm start` offers when BILLING_PRODUCTS is unset, read from the launcher itself. */
async function launcherSampleProducts(): Promise<string> {
  const launcher = await readFile(join(root, 'infra/local/start.mjs'), 'utf8');
  const products = /SAMPLE_BILLING_PRODUCTS = '([^']+)'/.exec(launcher)?.[1];
  if (!products) throw new Error('infra/local/start.mjs no longer declares SAMPLE_BILLING_PRODUCTS');
  return products;
}

const test = apiTest({ BILLING_TEST_MODE: 'true', BILLING_PRODUCTS: await launcherSampleProducts() });

const readme = await readFile(join(root, 'README.md'), 'utf8');

/** The fenced blocks of the README's quickstart section, by language. */
function quickstartBlocks(): { sh: string; ts: string } {
  const section = /^## Five-minute quickstart\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
  if (!section) throw new Error('README.md has no "## Five-minute quickstart" section');
  const blocks = [...section.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map(([, lang, code]) => ({ lang, code }));
  expect(blocks.map((block) => block.lang)).toEqual(['sh', 'ts']);
  return { sh: blocks[0]!.code!, ts: blocks[1]!.code! };
}

/** The README's address for `npm start`, replaced by the test api's (it must be there exactly once). */
function pointedAt(code: string, address: string): string {
  expect(code.split('http://localhost:3000').length - 1, 'the block names http://localhost:3000 once').toBe(1);
  return code.replace('http://localhost:3000', address);
}

interface Call {
  /** `POST /api/auth/signup`: the method and the path without the query. */
  request: string;
  status: number;
  body: unknown;
}

/** The requests each block must send, in order, and the status each must get. */
const QUICKSTART_STEPS = [
  'POST /api/auth/signup 201',
  'POST /api/auth/login 200',
  'POST /api/account/wallets 201',
  'POST /api/account/categories/import 200',
  'POST /api/account/entries 201',
  'GET /api/account/entries 200',
  'POST /api/billing/store/verify 200',
  'GET /api/billing/subscription 200',
];

const parseBody = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

const callOf = (method: string, url: string, status: number, body: string): Call => ({
  request: `${method} ${new URL(url).pathname}`,
  status,
  body: parseBody(body),
});

/** What the steps' answers must say, whichever block sent them. */
function expectTheQuickstartDone(calls: Call[], email: string): void {
  expect(
    calls.map((call) => `${call.request} ${call.status}`),
    JSON.stringify(calls, null, 2),
  ).toEqual(QUICKSTART_STEPS);
  const [signup, , wallet, imported, created, listed, verified, subscription] = calls.map((call) => call.body) as [
    { email: string },
    unknown,
    { id: number; type: string },
    { imported: number; skipped: number },
    { id: number; category: string; accountId: number; memo: string; amount: number },
    { items: Array<{ id: number }> },
    { plan: string; productId: string },
    { plan: string; state: string },
  ];
  expect(signup.email).toBe(email);
  expect(wallet.type).toBe('CASH');
  expect(imported.imported).toBeGreaterThan(0);
  expect(created).toMatchObject({ amount: 12800, category: '카페', memo: '스타벅스 강남R점', accountId: wallet.id });
  expect(listed.items.map((item) => item.id)).toContain(created.id);
  expect(verified).toMatchObject({ plan: 'PREMIUM', productId: 'premium_monthly' });
  expect(subscription).toMatchObject({ plan: 'PREMIUM', state: 'ACTIVE' });
}

/** A `curl` first on the PATH: runs the real one, prints what it printed, and writes the exchange down. */
const CURL_RECORDER = `#!/usr/bin/env bash
body="$(mktemp -p "$QUICKSTART_DIR")"
meta="$("$REAL_CURL" "$@" -o "$body" -w '%{method} %{url_effective} %{http_code}')" || status=$?
cat "$body"
printf '%s %s\\n' "$meta" "$body" >> "$QUICKSTART_DIR/calls"
exit "\${status:-0}"
`;

/** Preloaded into the TypeScript block's process: a fetch that writes each exchange down. */
const FETCH_RECORDER = `import { appendFileSync } from 'node:fs';
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const request = new Request(input, init);
  const response = await realFetch(request);
  const body = await response.clone().text();
  const call = { method: request.method, url: request.url, status: response.status, body };
  appendFileSync(process.env.QUICKSTART_CALLS, JSON.stringify(call) + '\\n');
  return response;
};
`;

async function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, args, { cwd, env, timeout: SLOW, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout}\n${stderr}`);
  }
}

async function which(program: string): Promise<string> {
  const found = await execFileAsync('bash', ['-c', `command -v ${program}`]).then(
    ({ stdout }) => stdout.trim(),
    () => '',
  );
  if (!found) throw new Error(`the README's quickstart needs ${program} on the PATH (.ci/run installs it)`);
  return found;
}

describe('README.md', () => {
  it('fits a screen: under 6,000 characters', () => {
    expect([...readme].length).toBeLessThan(6000);
  });

  it('links only to files that exist', async () => {
    const targets = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((match) => match[1]!);
    const local = targets.filter((target) => !/^[a-z]+:/.test(target));
    expect(local.length).toBeGreaterThan(5);
    for (const target of local) await expect(readFile(join(root, target)), target).resolves.toBeTruthy();
  });
});

describe("the README's five-minute quickstart against an api started as npm start configures it", () => {
  let dir = '';
  let address = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nestegg-quickstart-'));
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test.beforeAll(async ({ app }) => {
    address = await app.listen({ port: 0, host: '127.0.0.1' });
  });

  test(
    'in curl: every step answers as it should, the entry is listed and the plan is PREMIUM',
    async () => {
      const work = join(dir, 'sh');
      const bin = join(work, 'bin');
      await mkdir(bin, { recursive: true });
      const realCurl = await which('curl');
      await which('jq');
      await writeFile(join(bin, 'curl'), CURL_RECORDER);
      await chmod(join(bin, 'curl'), 0o755);
      await writeFile(join(work, 'calls'), '');
      await writeFile(join(work, 'quickstart.sh'), `set -euo pipefail\n${pointedAt(quickstartBlocks().sh, address)}`);
      const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, REAL_CURL: realCurl, QUICKSTART_DIR: work };
      const output = await run('bash', ['quickstart.sh'], work, env).catch(async (error: Error) => {
        const sent = await readFile(join(work, 'calls'), 'utf8');
        throw new Error(`${error.message}\nrequests sent (method, URL, status, body file):\n${sent}`);
      });

      const lines = (await readFile(join(work, 'calls'), 'utf8')).trim().split('\n');
      const calls = await Promise.all(
        lines.map(async (line) => {
          const [method, url, status, bodyFile] = line.split(' ');
          return callOf(method!, url!, Number(status), await readFile(bodyFile!, 'utf8'));
        }),
      );
      expectTheQuickstartDone(calls, 'ada@example.com');
      expect(output).toContain('"memo": "스타벅스 강남R점"');
      expect(output.trim().split('\n').at(-1)).toBe('"PREMIUM"');
    },
    SLOW,
  );

  test(
    'with the typed client: it type-checks (strict), every step answers as it should, and the plan is PREMIUM',
    async () => {
      // A frontend project with @nestegg/contract installed (the workspace package, read from its sources).
      const work = join(dir, 'ts');
      await mkdir(join(work, 'node_modules/@nestegg'), { recursive: true });
      await symlink(join(root, 'packages/contract'), join(work, 'node_modules/@nestegg/contract'), 'dir');
      await writeFile(
        join(work, 'package.json'),
        JSON.stringify({ name: 'quickstart', private: true, type: 'module' }),
      );
      const compilerOptions = {
        strict: true,
        noUncheckedIndexedAccess: true,
        target: 'ES2022',
        lib: ['ES2023', 'DOM'],
        module: 'ESNext',
        moduleResolution: 'Bundler',
        customConditions: ['@nestegg/source'],
        types: [],
        skipLibCheck: true,
        noEmit: true,
      };
      await writeFile(join(work, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['quickstart.ts'] }));
      await writeFile(join(work, 'quickstart.ts'), pointedAt(quickstartBlocks().ts, address));
      await writeFile(join(work, 'record-fetch.mjs'), FETCH_RECORDER);
      await writeFile(join(work, 'calls'), '');

      await run(process.execPath, [requireFromHere.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], work, {
        ...process.env,
      });
      const tsx = import.meta.resolve('tsx');
      const args = ['--conditions=@nestegg/source', '--import', tsx, '--import', './record-fetch.mjs', 'quickstart.ts'];
      const output = await run(process.execPath, args, work, { ...process.env, QUICKSTART_CALLS: join(work, 'calls') });

      const recorded = (await readFile(join(work, 'calls'), 'utf8')).trim().split('\n');
      const calls = recorded.map((line) => {
        const { method, url, status, body } = JSON.parse(line) as Record<string, string>;
        return callOf(method!, url!, Number(status), body!);
      });
      expectTheQuickstartDone(calls, 'grace@example.com');
      expect(output).toContain("memo: '스타벅스 강남R점'");
      expect(output.trim().split('\n').at(-1)).toBe('PREMIUM');
    },
    SLOW,
  );
});
