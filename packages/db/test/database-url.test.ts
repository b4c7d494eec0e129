import { describe, expect, it } from 'vitest';
import {
  DatabaseUrlError,
  databaseUrlProblem,
  driverHostOptions,
  parseDatabaseUrl,
  parseReadDatabaseUrl,
  readDatabaseUrlProblem,
} from '../src/database-url';

/** Issue 40 part 1: `DATABASE_URL` as libpq writes it, one host or several (decision FO33). */
describe('parseDatabaseUrl', () => {
  it('reads one host as before, with no session attributes unless asked', () => {
    expect(parseDatabaseUrl('postgres://u:p@db.internal:6543/nestegg')).toEqual({
      hosts: [{ host: 'db.internal', port: 6543 }],
      targetSessionAttrs: undefined,
    });
    expect(parseDatabaseUrl('postgresql://u@127.0.0.1/nestegg?sslmode=require').hosts).toEqual([
      { host: '127.0.0.1', port: 5432 },
    ]);
    expect(parseDatabaseUrl('postgres://u@h/db?target_session_attrs=primary').targetSessionAttrs).toBe('primary');
    expect(parseDatabaseUrl('postgres:///nestegg').hosts).toEqual([{ host: '', port: 5432 }]);
  });

  it('reads several hosts in order, each with its own port, and asks for a writable one by default', () => {
    expect(
      parseDatabaseUrl('postgres://u:p%40ss@h1:5432,h2:5433,[::1]:5434,[fe80::2]/db?target_session_attrs=read-write'),
    ).toEqual({
      hosts: [
        { host: 'h1', port: 5432 },
        { host: 'h2', port: 5433 },
        { host: '::1', port: 5434 },
        { host: 'fe80::2', port: 5432 },
      ],
      targetSessionAttrs: 'read-write',
    });
    expect(parseDatabaseUrl('postgres://u@h1,h2:6000/db').targetSessionAttrs).toBe('read-write');
    expect(parseDatabaseUrl('postgres://u@h1,h2/db?target_session_attrs=primary').targetSessionAttrs).toBe('primary');
  });

  it('refuses what the apps cannot use, saying what is wrong and never repeating the URL', () => {
    const refusals: Array<[string, RegExp]> = [
      ['mysql://u@h/db', /postgres:\/\/ or postgresql:\/\//],
      ['postgres//u@h/db', /postgres:\/\//],
      ['127.0.0.1:5432', /postgres:\/\//],
      ['postgres://u@h1:5432,h2:99999/db', /host 2 of 2 has port 99999/],
      ['postgres://u@h1:5432,h2:54x/db', /host 2 of 2 "h2:54x" is not host/],
      ['postgres://u@h1,,h2/db', /empty host among several/],
      ['postgres://u:s3cret@word@h1,h2/db', /"@": write it as %40/],
      ['postgres://u@h1,h2/db?target_session_attrs=any', /target_session_attrs=any/],
      ['postgres://u@h1,h2/db?target_session_attrs=prefer-standby', /read-write .* or primary/],
      ['postgres://u@h1,h2/db?target_session_attrs=standby', /target_session_attrs=standby/],
      ['postgres://u@h%zz/db', /broken %-escape/],
      ['postgres://u@[::1/db', /not host, host:port or \[IPv6\]:port/],
    ];
    for (const [url, message] of refusals) {
      expect(() => parseDatabaseUrl(url), url).toThrow(DatabaseUrlError);
      const problem = databaseUrlProblem(url);
      expect(problem, url).toMatch(message);
      expect(problem).not.toContain('s3cret');
    }
  });

  it('gives postgres.js each host with its port and the attributes; one host is left to the driver', () => {
    expect(driverHostOptions('postgres://u@h1:5432,[::1]:5433,h3/db')).toEqual({
      host: ['h1', '::1', 'h3'],
      port: [5432, 5433, 5432],
      target_session_attrs: 'read-write',
    });
    expect(driverHostOptions('postgres://u@h1:6000/db')).toEqual({});
    expect(driverHostOptions('postgres://u@h1:6000/db?target_session_attrs=read-write')).toEqual({
      target_session_attrs: 'read-write',
    });
  });
});

/** Issue 40 part 3: `DATABASE_READ_URL`, the same forms with a reader's attributes (decision DB21). */
describe('parseReadDatabaseUrl', () => {
  it('reads one replica or several, each a pool of its own; any by default', () => {
    expect(parseReadDatabaseUrl('postgres://u:p@replica1:5433,replica2/nestegg')).toEqual({
      hosts: [
        { host: 'replica1', port: 5433 },
        { host: 'replica2', port: 5432 },
      ],
      targetSessionAttrs: 'any',
    });
    for (const attrs of ['any', 'standby', 'prefer-standby'] as const) {
      expect(parseReadDatabaseUrl(`postgres://u@r1,r2/db?target_session_attrs=${attrs}`).targetSessionAttrs).toBe(
        attrs,
      );
    }
  });

  it("refuses what DATABASE_URL refuses, and a writer's attributes", () => {
    expect(readDatabaseUrlProblem('postgres://u@r1,r2/db?target_session_attrs=read-write')).toMatch(
      /target_session_attrs=read-write: replicas serve reads/,
    );
    expect(readDatabaseUrlProblem('postgres://u@r1/db?target_session_attrs=primary')).toMatch(/replicas serve reads/);
    expect(readDatabaseUrlProblem('postgres://u@r1,,r2/db')).toMatch(/empty host/);
    expect(readDatabaseUrlProblem('mysql://u@r1/db')).toMatch(/postgres:\/\//);
    expect(readDatabaseUrlProblem('postgres://u:s3cr3t@r1:99999/db')).not.toMatch(/s3cr3t/);
    expect(() => parseReadDatabaseUrl('postgres://u@r1/db?target_session_attrs=read-only')).toThrow(DatabaseUrlError);
    // DATABASE_URL still refuses a reader's attributes.
    expect(databaseUrlProblem('postgres://u@h1,h2/db?target_session_attrs=standby')).toMatch(/the apps write/);
  });
});
