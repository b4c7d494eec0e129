import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { testDatabaseUrl } from './env.js';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export function databaseUrlFor(name: string, baseUrl = testDatabaseUrl): string {
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function adminClient() {
  return postgres(testDatabaseUrl, { max: 1, onnotice: () => {} });
}

/** The template's name follows what the migrations produce, so a stale template is never reused. */
export function templateNameFor(fingerprint: string): string {
  return `nestegg_template_${fingerprint}`;
}

/**
 * Creates (once, under an advisory lock so parallel test runs do not race) a database migrated
 * to the current schema and marked as a template. Returns its name.
 */
export async function ensureTemplateDatabase(
  fingerprint: string,
  migrate: (url: string) => Promise<void>,
): Promise<string> {
  const name = templateNameFor(fingerprint);
  const sql = adminClient();
  try {
    await sql`select pg_advisory_lock(hashtext('nestegg-test-template'))`;
    const [existing] = await sql`select datistemplate from pg_database where datname = ${name}`;
    if (existing?.datistemplate) return name;
    if (existing) await sql.unsafe(`drop database "${name}" with (force)`);
    await sql.unsafe(`create database "${name}"`);
    await migrate(databaseUrlFor(name));
    await sql.unsafe(`alter database "${name}" with is_template true allow_connections false`);
    return name;
  } finally {
    await sql`select pg_advisory_unlock(hashtext('nestegg-test-template'))`.catch(() => {});
    await sql.end();
  }
}

/** A fresh database copied from the template; each test file gets its own, so files run in parallel. */
export async function createDatabaseFromTemplate(template: string): Promise<TestDatabase> {
  const name = `nestegg_test_${randomBytes(6).toString('hex')}`;
  const sql = adminClient();
  try {
    await sql.unsafe(`create database "${name}" template "${template}"`);
  } finally {
    await sql.end();
  }
  return { name, url: databaseUrlFor(name), drop: () => dropDatabase(name) };
}

/** An empty database with no schema at all (for migration tests). */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const name = `nestegg_test_${randomBytes(6).toString('hex')}`;
  const sql = adminClient();
  try {
    await sql.unsafe(`create database "${name}"`);
  } finally {
    await sql.end();
  }
  return { name, url: databaseUrlFor(name), drop: () => dropDatabase(name) };
}

export async function dropDatabase(name: string): Promise<void> {
  const sql = adminClient();
  try {
    await sql.unsafe(`drop database if exists "${name}" with (force)`);
  } finally {
    await sql.end();
  }
}
