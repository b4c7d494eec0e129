import { databaseUrlProblem } from '../database-url';
import { migrateDatabase } from '../migrate';

/** `DATABASE_URL=postgres://… node dist/cli/migrate.js [migrationsFolder]` */
async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error('DATABASE_URL is not set: export DATABASE_URL=postgres://user@host:5432/dbname and retry.');
    process.exit(2);
  }
  // A URL that cannot be used is a configuration error naming the variable, not a stack trace (decision FO33).
  const problem = databaseUrlProblem(url);
  if (problem) {
    console.error(`[db:migrate] DATABASE_URL: ${problem}`);
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
