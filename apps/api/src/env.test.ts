import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidEnvironmentError, loadEnv, metricsHostOf } from './env.js';

const DATABASE_URL = 'postgres://localhost/x';

function issuesOf(source: Record<string, string>): string[] {
  try {
    loadEnv(source);
  } catch (error) {
    if (error instanceof InvalidEnvironmentError) return error.issues;
    throw error;
  }
  return [];
}

describe('loadEnv', () => {
  it('fails fast with one message naming every bad variable', () => {
    const issues = issuesOf({ PORT: 'abc', APP_TIMEZONE: 'Mars/Olympus', REDIS_URL: 'http://x' }).join('\n');
    expect(issues).toMatch(/DATABASE_URL/);
    expect(issues).toMatch(/PORT/);
    expect(issues).toMatch(/APP_TIMEZONE: must be an IANA time zone/);
    expect(issues).toMatch(/REDIS_URL: expected a redis:\/\//);
  });

  it('applies defaults and parses the trusted-proxy setting', () => {
    const env = loadEnv({ DATABASE_URL, TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' });
    expect(env.PORT).toBe(3000);
    expect(env.REDIS_URL).toBeUndefined();
    expect(env.CORS_ORIGINS).toEqual([]);
    expect(env.TRUST_PROXY).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(loadEnv({ DATABASE_URL, TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
  });

  it('runs one libvips thread per image with its cache off unless told otherwise (decision DL20)', () => {
    expect(loadEnv({ DATABASE_URL })).toMatchObject({ IMAGE_THREADS: 1, IMAGE_CACHE_MB: 0 });
    expect(loadEnv({ DATABASE_URL, IMAGE_THREADS: '4', IMAGE_CACHE_MB: '16' })).toMatchObject({
      IMAGE_THREADS: 4,
      IMAGE_CACHE_MB: 16,
    });
    expect(() => loadEnv({ DATABASE_URL, IMAGE_THREADS: '0' })).toThrow(/IMAGE_THREADS/);
    expect(() => loadEnv({ DATABASE_URL, IMAGE_CACHE_MB: '-1' })).toThrow(/IMAGE_CACHE_MB/);
  });

  it('lets a large import work half the time while others are served, between 0.1 and 1 (decision P35)', () => {
    expect(loadEnv({ DATABASE_URL }).IMPORT_BUSY_SHARE).toBe(0.5);
    expect(loadEnv({ DATABASE_URL, IMPORT_BUSY_SHARE: '1' }).IMPORT_BUSY_SHARE).toBe(1);
    for (const share of ['0', '0.05', '1.5', 'half']) {
      expect(issuesOf({ DATABASE_URL, IMPORT_BUSY_SHARE: share }).join('\n')).toMatch(/IMPORT_BUSY_SHARE/);
    }
  });

  it('listens on this machine only by default, metrics too; containers set 0.0.0.0 (decision I7)', () => {
    const env = loadEnv({ DATABASE_URL });
    expect([env.HOST, metricsHostOf(env)]).toEqual(['127.0.0.1', '127.0.0.1']);
    expect(metricsHostOf(loadEnv({ DATABASE_URL, HOST: '0.0.0.0' }))).toBe('0.0.0.0');
    expect(metricsHostOf(loadEnv({ DATABASE_URL, HOST: '0.0.0.0', METRICS_HOST: '10.0.0.5' }))).toBe('10.0.0.5');
  });

  it('sheds on event-loop delay and heap by default, not on event-loop utilisation (decision FS2)', () => {
    const env = loadEnv({ DATABASE_URL });
    expect([env.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS, env.OVERLOAD_MAX_EVENT_LOOP_UTILIZATION]).toEqual([1000, 0]);
    expect(
      loadEnv({ DATABASE_URL, OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: '0.99' }).OVERLOAD_MAX_EVENT_LOOP_UTILIZATION,
    ).toBe(0.99);
  });

  it('takes CORS origins as exact origins only', () => {
    expect(
      loadEnv({ DATABASE_URL, CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' }).CORS_ORIGINS,
    ).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(issuesOf({ DATABASE_URL, CORS_ORIGINS: 'https://app.example.com/path' })[0]).toMatch(/^CORS_ORIGINS: /);
    expect(issuesOf({ DATABASE_URL, CORS_ORIGINS: '*' })[0]).toMatch(/^CORS_ORIGINS: /);
  });

  it('refuses a half-configured identity provider, naming each missing variable', () => {
    expect(issuesOf({ DATABASE_URL, IDPONE_CLIENT_ID: 'client-one' })).toEqual([
      expect.stringMatching(/^IDPONE_JWKS_URL: required because IDPONE_CLIENT_ID is set/),
      expect.stringMatching(/^IDPONE_ISSUERS: required because IDPONE_CLIENT_ID is set/),
    ]);
    expect(issuesOf({ DATABASE_URL, IDPTWO_JWKS_URL: 'https://keys.example.com' })).toHaveLength(2);
  });

  it('reads secrets from NAME_FILE', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'nestegg-api-env-')), 'database-url');
    writeFileSync(file, 'postgres://app:secret@db:5432/nestegg\n');
    expect(loadEnv({ DATABASE_URL_FILE: file }).DATABASE_URL).toBe('postgres://app:secret@db:5432/nestegg');
  });
});
