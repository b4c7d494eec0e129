import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  cronExpression,
  databaseEnvShape,
  databasePoolerOptions,
  directDatabaseUrl,
  httpUrl,
  InvalidEnvironmentError,
  isCronExpression,
  loadEnvironment,
  postgresUrl,
  redisUrl,
  requireDirectUrlBehindPooler,
  requireWholeGroups,
  timeZone,
} from './index.js';

const shape = {
  DATABASE_URL: postgresUrl,
  CRON: cronExpression('17 3 * * *'),
  ZONE: timeZone(),
  IDP_CLIENT_ID: z.string().optional(),
  IDP_KEYS_URL: z.string().url().optional(),
};
const schema = z
  .object(shape)
  .superRefine(requireWholeGroups([{ name: 'the provider', variables: ['IDP_CLIENT_ID', 'IDP_KEYS_URL'] }]));
const load = (source: Record<string, string>) => loadEnvironment(schema, Object.keys(shape), source);

function issuesOf(source: Record<string, string>): string[] {
  try {
    load(source);
  } catch (error) {
    if (error instanceof InvalidEnvironmentError) return error.issues;
    throw error;
  }
  return [];
}

describe('environment loading', () => {
  it('names every bad variable at once', () => {
    const issues = issuesOf({ CRON: '61 * * * *', ZONE: 'Mars/Olympus' });
    expect(issues).toHaveLength(3);
    expect(issues.join('\n')).toMatch(/DATABASE_URL/);
    expect(issues.join('\n')).toMatch(/CRON: must be a five-field cron expression/);
    expect(issues.join('\n')).toMatch(/ZONE: must be an IANA time zone/);
  });

  it('treats blank values as unset', () => {
    expect(load({ DATABASE_URL: 'postgres://x@h/db', CRON: ' ', ZONE: '' })).toMatchObject({
      CRON: '17 3 * * *',
      ZONE: 'UTC',
    });
  });

  it('reads NAME_FILE for any declared variable, and refuses both forms at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nestegg-env-'));
    writeFileSync(join(dir, 'url'), 'postgres://secret@db/nestegg\n');
    expect(load({ DATABASE_URL_FILE: join(dir, 'url') }).DATABASE_URL).toBe('postgres://secret@db/nestegg');
    expect(issuesOf({ DATABASE_URL: 'postgres://a@b/c', DATABASE_URL_FILE: join(dir, 'url') })).toEqual([
      'DATABASE_URL: set either DATABASE_URL or DATABASE_URL_FILE, not both',
    ]);
    expect(issuesOf({ DATABASE_URL_FILE: join(dir, 'missing') })[0]).toMatch(/DATABASE_URL_FILE: cannot read .*ENOENT/);
  });

  it('refuses a half-configured feature group, naming what is missing', () => {
    const issues = issuesOf({ DATABASE_URL: 'postgres://x@h/db', IDP_CLIENT_ID: 'client' });
    expect(issues).toEqual([
      'IDP_KEYS_URL: required because IDP_CLIENT_ID is set (the provider needs all of IDP_CLIENT_ID, IDP_KEYS_URL, or none)',
    ]);
    expect(issuesOf({ DATABASE_URL: 'postgres://x@h/db' })).toEqual([]);
  });

  it('takes a DATABASE_URL naming several hosts, and names the variable for one it cannot use (decision FO33)', () => {
    const multiHost = 'postgres://u@127.0.0.1:5432,127.0.0.1:5433/db?target_session_attrs=read-write';
    expect(load({ DATABASE_URL: multiHost }).DATABASE_URL).toBe(multiHost);
    expect(load({ DATABASE_URL: 'postgresql://u@[::1]:5432,db2/db' }).DATABASE_URL).toContain('db2');
    // Each was a TypeError thrown out of the validation (`new URL()` in a refinement), with a stack trace.
    expect(issuesOf({ DATABASE_URL: 'postgres://u@h1:5432,h2:5433/db?target_session_attrs=standby' })).toEqual([
      'DATABASE_URL: target_session_attrs=standby: the apps write, so it is read-write (the default with several hosts) or primary',
    ]);
    expect(issuesOf({ DATABASE_URL: 'db.internal:5432' })).toEqual([
      'DATABASE_URL: expected a postgres:// or postgresql:// URL',
    ]);
    const refined = z.object({ REDIS_URL: redisUrl, PUBLIC_URL: httpUrl });
    expect(refined.safeParse({ REDIS_URL: 'redis//x', PUBLIC_URL: 'example.com' }).success).toBe(false);
  });

  it('behind a transaction pooler requires DATABASE_DIRECT_URL, and otherwise defaults it to DATABASE_URL (DB13, DB14)', () => {
    const pooled = z.object(databaseEnvShape(10)).superRefine(requireDirectUrlBehindPooler);
    const keys = Object.keys(databaseEnvShape(10));
    const loadPooled = (source: Record<string, string>) => loadEnvironment(pooled, keys, source);
    const pooler = 'postgres://u@pgbouncer:6432/db';
    const direct = 'postgres://u@db1:5432,db2:5432/db';
    const plain = loadPooled({ DATABASE_URL: pooler });
    expect(plain.DATABASE_POOLER).toBe('none');
    expect(directDatabaseUrl(plain)).toBe(pooler);
    expect(databasePoolerOptions(plain)).toEqual({});
    expect(() => loadPooled({ DATABASE_URL: pooler, DATABASE_POOLER: 'transaction' })).toThrow(
      /DATABASE_DIRECT_URL: required when DATABASE_POOLER=transaction/,
    );
    const behind = loadPooled({ DATABASE_URL: pooler, DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: direct });
    expect(directDatabaseUrl(behind)).toBe(direct);
    expect(databasePoolerOptions(behind)).toEqual({ pooler: 'transaction' });
    expect(() => loadPooled({ DATABASE_URL: pooler, DATABASE_POOLER: 'session' })).toThrow(/DATABASE_POOLER/);
    expect(() => loadPooled({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: 'db:5432' })).toThrow(/DATABASE_DIRECT_URL/);
  });

  it('checks cron expressions field by field', () => {
    expect(isCronExpression('17 3 * * *')).toBe(true);
    expect(isCronExpression('*/5 * * * 1-5')).toBe(true);
    for (const bad of ['', 'every day', '* * * *', '60 * * * *', '* 24 * * *', '* * * * * *']) {
      expect(isCronExpression(bad), bad).toBe(false);
    }
  });
});
