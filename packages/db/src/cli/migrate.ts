import { databaseUrlProblem } from '../database-url';
import { migrateDatabase } from '../migrate';

/**
 * `DATABASE_URL=postgres://… node dist/cli/migrate.js [migrationsFolder]`. With `DATABASE_DIRECT_URL` set (the apps'
 * `DATABASE_URL` is a transaction pooler's), the migrations run there: their advisory lock is the session's (DB14).
 */
async function main(): Promise<void> {
  const direct = process.env.DATABASE_DIRECT_URL ? 'DATABASE_DIRECT_URL' : 'DATABASE_URL';
  const url = process.env[direct];
  if (!url) {
    console.error('DATABASE_URL is not set: export DATABASE_URL=postgres://user@host:5432/dbname and retry.');
    process.exit(2);
  }
  // A URL that cannot be used is a configuration error naming the variable, not a stack trace (decision FO33).
  const problem = databaseUrlProblem(url);
  if (problem) {
    console.error(`[db:migrate] ${direct}: ${problem}`);
    process.exit(2);
  }
  const folder = process.argv[2];
  await migrateDatabase(url, {
    ...(folder ? { migrationsFolder: folder } : {}),
    log: (message) => console.log(`[db:migrate] ${message}`),
  });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('[db:migrate] failed:', error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
