import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { PgBoss } from 'pg-boss';
import postgres from 'postgres';
import { driverHostOptions } from './database-url';
import { openJobEngineDatabase } from './job-engine';

/** Schema of the job engine (pg-boss) the billing worker runs on; installed and upgraded here, not by the worker. */
export const JOB_SCHEMA = 'pgboss';

const JOURNAL = join('meta', '_journal.json');
/** Arbitrary constant key of the advisory lock that serialises concurrent migrators. */
const MIGRATION_LOCK_KEY = 7_304_211_991;

function isMigrationsDir(dir: string): boolean {
  return existsSync(join(dir, JOURNAL));
}

/**
 * Finds the `migrations/` folder of `@nestegg/db`.
 *
 * Order: the `NESTEGG_MIGRATIONS_DIR` environment variable; then, walking up from `from`
 * (default: the directory of this module, i.e. `src/` under tsx/vitest or `dist/` after the
 * build), a `migrations/` folder next to a `package.json` of `@nestegg/db`, or
 * `node_modules/@nestegg/db/migrations` (when an app bundled this code into its own dist).
 * Throws with the places it looked when nothing is found; pass an explicit folder instead.
 */
export function migrationsFolder(from?: string): string {
  const fromEnv = process.env.NESTEGG_MIGRATIONS_DIR;
  if (fromEnv) {
    const dir = resolve(fromEnv);
    if (!isMigrationsDir(dir)) throw new Error(`NESTEGG_MIGRATIONS_DIR=${fromEnv} holds no ${JOURNAL}`);
    return dir;
  }
  const tried: string[] = [];
  const starts = [from ?? dirname(fileURLToPath(import.meta.url)), process.cwd()];
  for (const start of starts) {
    let dir = resolve(start);
    for (let depth = 0; depth < 8; depth++) {
      for (const candidate of [
        join(dir, 'migrations'),
        join(dir, 'packages', 'db', 'migrations'),
        join(dir, 'node_modules', '@nestegg', 'db', 'migrations'),
      ]) {
        tried.push(candidate);
        if (isMigrationsDir(candidate)) return candidate;
      }
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  throw new Error(
    `@nestegg/db: cannot find the migrations folder (looked for ${JOURNAL} under: ${tried.slice(0, 6).join(', ')}, …). ` +
      'Pass { migrationsFolder } or set NESTEGG_MIGRATIONS_DIR.',
  );
}

export interface MigrateOptions {
  /** Folder holding the drizzle-kit migrations (default: `migrationsFolder()`). */
  migrationsFolder?: string;
  /** Called with progress messages. */
  log?: (message: string) => void;
}

/** The job engine's schema version this build expects (pg-boss's own migrations reach it). */
export function jobSchemaVersion(): number {
  const manifest = createRequire(import.meta.url)('pg-boss/package.json') as { pgboss: { schema: number } };
  return manifest.pgboss.schema;
}

/**
 * Identifies what `migrateDatabase` produces: the migration files and the job engine's schema version.
 * The test harness names its template database after it, so a stale template is never reused.
 */
export function migrationFingerprint(folder = migrationsFolder()): string {
  const hash = createHash('sha256').update(`job-schema:${jobSchemaVersion()}`);
  for (const file of readdirSync(folder)
    .filter((name) => name.endsWith('.sql'))
    .sort()) {
    hash.update(file).update(readFileSync(join(folder, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * Creates or upgrades the job engine's schema with pg-boss's own installer (it keeps its version in the
 * schema). The worker then starts with `migrate: false` and needs no DDL rights.
 */
async function installJobSchema(url: string): Promise<void> {
  // On postgres.js, as the worker's engine: node-postgres knows one host only (decision FO33).
  const jobs = openJobEngineDatabase(url, { max: 1, applicationName: 'nestegg-migrate' });
  const boss = new PgBoss({
    db: jobs.db,
    schema: JOB_SCHEMA,
    migrate: true,
    createSchema: true,
    supervise: false,
    schedule: false,
  });
  let failure: unknown;
  boss.on('error', (error) => {
    failure ??= error;
  });
  try {
    await boss.start();
    await boss.stop({ graceful: false, close: true });
  } finally {
    await jobs.close();
  }
  if (failure) throw failure;
}

/** The job engine's schema version the database holds; undefined when it has none (decision F10). */
async function installedJobSchemaVersion(sql: postgres.Sql): Promise<number | undefined> {
  const [table] = await sql<{ name: string | null }[]>`select to_regclass(${`${JOB_SCHEMA}.version`}) as name`;
  if (!table?.name) return undefined;
  const [row] = await sql.unsafe<{ version: number }[]>(`select version::int as version from ${JOB_SCHEMA}.version`);
  return row?.version;
}

/**
 * Installs the job engine's schema, or upgrades an older one, saying which; a schema already at this
 * build's version (a warm start) is left alone, without a word, as pg-boss's installer would leave it.
 */
async function ensureJobSchema(sql: postgres.Sql, url: string, log: MigrateOptions['log']): Promise<void> {
  const installed = await installedJobSchemaVersion(sql);
  const wanted = jobSchemaVersion();
  if (installed !== undefined && installed >= wanted) return;
  log?.(
    installed === undefined
      ? `installing the job engine schema "${JOB_SCHEMA}" (version ${wanted})`
      : `upgrading the job engine schema "${JOB_SCHEMA}" from version ${installed} to ${wanted}`,
  );
  await installJobSchema(url);
}

/**
 * Applies every pending migration to the database at `url` over a single connection, then installs or
 * upgrades the job engine's schema when it is missing or older. Concurrent callers on the same database are
 * serialised with an advisory lock. `url` may name several hosts: the writable one is migrated (decision FO33).
 */
export async function migrateDatabase(url: string, options: MigrateOptions = {}): Promise<void> {
  const folder = options.migrationsFolder ?? migrationsFolder();
  const sql = postgres(url, { ...(driverHostOptions(url) as object), max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    try {
      options.log?.(`applying migrations from ${folder}`);
      await migrate(drizzle(sql), { migrationsFolder: folder });
      await ensureJobSchema(sql, url, options.log);
      options.log?.('migrations applied');
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}
