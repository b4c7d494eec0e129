import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';

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

/**
 * Applies every pending migration to the database at `url` over a single connection.
 * Concurrent callers on the same database are serialised with an advisory lock.
 */
export async function migrateDatabase(url: string, options: MigrateOptions = {}): Promise<void> {
  const folder = options.migrationsFolder ?? migrationsFolder();
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    try {
      options.log?.(`applying migrations from ${folder}`);
      await migrate(drizzle(sql), { migrationsFolder: folder });
      options.log?.('migrations applied');
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}
