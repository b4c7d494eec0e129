import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { account, member } from '@nestegg/db';
import type { TestDatabase, TestRedis } from '@nestegg/testing';
import { asc, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { AccountNumberCipher } from '../modules/ledger/wallets/account-numbers.js';
import { PasswordHasher } from '../modules/members/auth/passwords.js';

const hasher = new PasswordHasher();

import { createMemberWithSession } from '../test/app.js';
import { apiTest } from '../test/fixtures.js';

/** Runs `admin …` the way `pnpm --filter @nestegg/api admin …` does. */

const test = apiTest();
const apiDir = fileURLToPath(new URL('../..', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], env: Record<string, string | undefined>, stdin = ''): Promise<Run> {
  const base = { ...process.env };
  for (const key of ['DATABASE_URL', 'REDIS_URL', 'REDIS_KEY_PREFIX', 'ADMIN_PASSWORD']) delete base[key];
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, ['--conditions=@nestegg/source', 'src/cli/admin.ts', ...args], {
      cwd: apiDir,
      env: { ...base, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

const connection = (testDatabase: TestDatabase, testRedis: TestRedis) => ({
  DATABASE_URL: testDatabase.url,
  REDIS_URL: testRedis.url,
  REDIS_KEY_PREFIX: testRedis.keyPrefix,
});

const byEmail = async (app: FastifyInstance, email: string) =>
  (await app.db.select().from(member).where(sql`lower(${member.email}) = ${email.toLowerCase()}`))[0];

const uniqueEmail = (label: string) => `${label}-${randomBytes(4).toString('hex')}@nestegg.test`;

describe('admin command line', () => {
  test('fails fast without DATABASE_URL', async () => {
    const run = await runCli(['promote', 'someone@nestegg.test'], {});
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('DATABASE_URL is not set');
  });

  test('prints the usage for unknown commands, missing arguments and bad e-mails', async ({
    testDatabase,
    testRedis,
  }) => {
    const cases = [[], ['grant', 'a@b.test'], ['promote'], ['create', 'a@b.test'], ['promote', 'not-an-email']];
    const runs = await Promise.all(cases.map((args) => runCli(args, connection(testDatabase, testRedis))));
    runs.forEach((run, index) => {
      expect(run.code, cases[index]!.join(' ')).toBe(2);
      expect(run.stderr).toContain('Usage:');
    });
    // Five CLI processes start at once (each loads the sources through tsx): slow on a busy 2-core machine.
  }, 120_000);

  test('promote gives an existing account ADMIN; its live session becomes an admin session', async ({
    app,
    testDatabase,
    testRedis,
  }) => {
    const target = await createMemberWithSession(app);
    await app.services.sessions.resolve(target.token); // cached in Redis as USER

    const run = await runCli(['promote', target.email.toUpperCase()], connection(testDatabase, testRedis));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('is now an ADMIN');

    const [row] = await app.db.select().from(member).where(eq(member.id, target.id));
    expect(row?.role).toBe('ADMIN');
    expect((await app.services.sessions.resolve(target.token))?.role).toBe('ADMIN');
    const response = await app.inject({ method: 'GET', url: '/api/admin/members', headers: target.headers });
    expect(response.statusCode).toBe(200);
  });

  test('promote of an unknown e-mail fails with exit code 1', async ({ testDatabase, testRedis }) => {
    const run = await runCli(['promote', 'nobody@nestegg.test'], connection(testDatabase, testRedis));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No account uses the e-mail nobody@nestegg.test');
  });

  test('create makes a LOCAL admin with the password from ADMIN_PASSWORD', async ({ app, testDatabase, testRedis }) => {
    const email = uniqueEmail('root');
    const run = await runCli(['create', email, 'Root'], {
      ...connection(testDatabase, testRedis),
      ADMIN_PASSWORD: 'correct horse battery',
    });
    expect(run.code, run.stderr).toBe(0);
    const row = await byEmail(app, email);
    expect(row).toMatchObject({ role: 'ADMIN', provider: 'LOCAL', status: 'ACTIVE', displayName: 'Root' });
    expect((await hasher.check('correct horse battery', row!.passwordHash!)).ok).toBe(true);

    const again = await runCli(['create', email, 'Root'], {
      ...connection(testDatabase, testRedis),
      ADMIN_PASSWORD: 'correct horse battery',
    });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('promote it instead');
  });

  test('create reads the password from piped stdin and refuses a short one', async ({ app, testDatabase }) => {
    const email = uniqueEmail('piped');
    const run = await runCli(
      ['create', email, 'Piped Admin'],
      { DATABASE_URL: testDatabase.url },
      'long enough secret\n',
    );
    expect(run.code, run.stderr).toBe(0);
    expect((await hasher.check('long enough secret', (await byEmail(app, email))!.passwordHash!)).ok).toBe(true);
    // No REDIS_URL here: the api's notice about it does not concern the command line (decision F11).
    expect(run.stderr).toBe('');

    const short = uniqueEmail('short');
    const refused = await runCli(['create', short, 'Short'], { DATABASE_URL: testDatabase.url }, 'short\n');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('8 to 128 characters');
    expect(await byEmail(app, short)).toBeUndefined();
  });
});

/**
 * The documented form (docs/deployment.md), `npm run admin -- …` from the repository root, with the machine's own Node first on
 * PATH (the fetched Node 24 taken off it): the entry script must bring Node 24 itself (argon2 crashes older
 * ones here) and default to the embedded PostgreSQL of `npm start`.
 */
function runReadmeCommand(args: string[], env: Record<string, string | undefined>): Promise<Run> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      // A person's shell, not a package script's: pnpm's and turbo's variables (PNPM_SCRIPT_SRC_DIR…) make the
      // inner `pnpm --filter` look in the wrong place.
      ([name]) => !/^(npm|pnpm|turbo)_/i.test(name) && !['DATABASE_URL', 'REDIS_URL', 'ADMIN_PASSWORD'].includes(name),
    ),
  );
  const path = (process.env.PATH ?? '')
    .split(':')
    .filter((dir) => !dir.includes('/.tools/node-') && !dir.includes('node_modules'))
    .join(':');
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'admin', '--', ...args], {
      cwd: fileURLToPath(new URL('../../../..', import.meta.url)),
      env: { ...base, PATH: path, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the documented admin command (npm run admin)', () => {
  test('creates an admin under whatever Node the machine has', async ({ app, testDatabase, testRedis }) => {
    const email = uniqueEmail('readme');
    const run = await runReadmeCommand(['create', email, 'Readme'], {
      ...connection(testDatabase, testRedis),
      ADMIN_PASSWORD: 'correct horse battery',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Created ADMIN ${email}`);
    expect(await byEmail(app, email)).toMatchObject({ role: 'ADMIN' });
  }, 120_000);

  test('without DATABASE_URL uses the embedded PostgreSQL of npm start and says so when it is not running', async () => {
    const run = await runReadmeCommand(['promote', 'someone@nestegg.test'], { EMBEDDED_POSTGRES_PORT: '9' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'using the embedded PostgreSQL of npm start (postgres://postgres:postgres@127.0.0.1:9/nestegg)',
    );
    expect(run.stderr).toContain('admin: cannot reach the database');
    expect(run.stderr).toContain('keep `npm start` running');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  }, 120_000);
});

describe('admin reencrypt-account-numbers', () => {
  const oldKey = { id: 'old', key: randomBytes(32) };
  const newKey = { id: 'new', key: randomBytes(32) };
  const keyEnv = {
    ACCOUNT_NUMBER_KEYS: [oldKey, newKey].map((entry) => `${entry.id}:${entry.key.toString('base64')}`).join(','),
    ACCOUNT_NUMBER_KEY_ID: newKey.id,
  };
  const underOld = new AccountNumberCipher({ keys: [oldKey], currentKeyId: oldKey.id });
  const underNew = new AccountNumberCipher({ keys: [newKey], currentKeyId: newKey.id });

  async function walletsWith(app: FastifyInstance, numbers: (string | null)[]) {
    const owner = await createMemberWithSession(app);
    return app.db
      .insert(account)
      .values(
        numbers.map((accountNumber, index) => ({
          memberId: owner.id,
          name: `W${index}`,
          type: 'BANK' as const,
          accountNumber,
        })),
      )
      .returning({ id: account.id });
  }

  const storedNumbers = async (app: FastifyInstance, ids: number[]) =>
    (await app.db.select({ id: account.id, value: account.accountNumber }).from(account).orderBy(asc(account.id)))
      .filter((row) => ids.includes(row.id))
      .map((row) => row.value);

  test('moves plain and old-key numbers to the current key in batches, idempotently, printing counts only', async ({
    app,
    testDatabase,
    testRedis,
  }) => {
    const plain = ['111-1', '222-2', '333-3'];
    const old = ['444-4', '555-5'].map((value) => underOld.encrypt(value)!);
    const current = underNew.encrypt('666-6')!;
    const ids = (await walletsWith(app, [...plain, ...old, current, null])).map((row) => row.id);

    const run = await runCli(['reencrypt-account-numbers', '2'], { ...connection(testDatabase, testRedis), ...keyEnv });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Re-encrypted 5 account numbers under key "new"; 1 were already under it.');
    expect(run.stdout + run.stderr).not.toMatch(/111-1|444-4|666-6/);

    const stored = await storedNumbers(app, ids);
    expect(stored.slice(0, 6).every((value) => value!.startsWith('enc:v1:new:'))).toBe(true);
    expect(stored[5]).toBe(current);
    expect(stored[6]).toBeNull();
    expect(stored.slice(0, 6).map((value) => underNew.decrypt(value))).toEqual([...plain, '444-4', '555-5', '666-6']);

    const again = await runCli(['reencrypt-account-numbers'], { ...connection(testDatabase, testRedis), ...keyEnv });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Re-encrypted 0 account numbers');
    expect(await storedNumbers(app, ids)).toEqual(stored);
  });

  test('leaves numbers no configured key opens, and fails the run naming how many', async ({
    app,
    testDatabase,
    testRedis,
  }) => {
    const lost = new AccountNumberCipher({ keys: [{ id: 'lost', key: randomBytes(32) }], currentKeyId: 'lost' });
    const unreadable = lost.encrypt('777-7')!;
    const ids = (await walletsWith(app, [unreadable, '888-8'])).map((row) => row.id);
    const run = await runCli(['reencrypt-account-numbers'], { ...connection(testDatabase, testRedis), ...keyEnv });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('1 account numbers could not be decrypted');
    const [kept, moved] = await storedNumbers(app, ids);
    expect(kept).toBe(unreadable);
    expect(underNew.decrypt(moved!)).toBe('888-8');
  });

  test('needs a current key and a sane batch size', async ({ testDatabase, testRedis }) => {
    const noKey = await runCli(['reencrypt-account-numbers'], connection(testDatabase, testRedis));
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('ACCOUNT_NUMBER_KEY_ID');
    const badSize = await runCli(['reencrypt-account-numbers', '0'], {
      ...connection(testDatabase, testRedis),
      ...keyEnv,
    });
    expect(badSize.code).toBe(2);
    expect(badSize.stderr).toContain('batch size');
  });
});
