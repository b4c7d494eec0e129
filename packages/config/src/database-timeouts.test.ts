import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { databaseTimeoutOptions, databaseTimeoutsEnvShape } from './fragments.js';
import { InvalidEnvironmentError, loadEnvironment } from './load.js';

/** Issue 17, item 2: the database timeouts are settings with validated values and chosen defaults (decision FO1). */

const shape = databaseTimeoutsEnvShape({ connectMs: 1500, acquireMs: 500, statementMs: 30_000 });
const load = (source: Record<string, string>) => loadEnvironment(z.object(shape), Object.keys(shape), source);

function issuesOf(source: Record<string, string>): string[] {
  try {
    load(source);
  } catch (error) {
    if (error instanceof InvalidEnvironmentError) return error.issues;
    throw error;
  }
  return [];
}

describe('database timeouts', () => {
  it('default to the values the app chose, and become createDb options', () => {
    const env = load({});
    expect(env).toEqual({
      DATABASE_CONNECT_TIMEOUT_MS: 1500,
      DATABASE_ACQUIRE_TIMEOUT_MS: 500,
      DATABASE_STATEMENT_TIMEOUT_MS: 30_000,
      DATABASE_IDLE_TIMEOUT_SECONDS: 30,
      DATABASE_MAX_LIFETIME_SECONDS: 1800,
    });
    expect(databaseTimeoutOptions(env)).toEqual({
      connectTimeout: 1.5,
      idleTimeout: 30,
      maxLifetime: 1800,
      reconnectBackoffMaxSeconds: 0.25,
      acquireTimeoutMs: 500,
      statementTimeoutMs: 30_000,
    });
  });

  it('turn the acquire and statement bounds off with 0', () => {
    const options = databaseTimeoutOptions(
      load({ DATABASE_ACQUIRE_TIMEOUT_MS: '0', DATABASE_STATEMENT_TIMEOUT_MS: '0' }),
    );
    expect(options).not.toHaveProperty('acquireTimeoutMs');
    expect(options).not.toHaveProperty('statementTimeoutMs');
  });

  it('refuse values that are not whole milliseconds in range, naming each variable', () => {
    const issues = issuesOf({
      DATABASE_CONNECT_TIMEOUT_MS: '0',
      DATABASE_ACQUIRE_TIMEOUT_MS: '5',
      DATABASE_STATEMENT_TIMEOUT_MS: 'soon',
      DATABASE_IDLE_TIMEOUT_SECONDS: '-1',
      DATABASE_MAX_LIFETIME_SECONDS: '1.5',
    });
    expect(issues).toHaveLength(5);
    for (const name of [
      'DATABASE_CONNECT_TIMEOUT_MS',
      'DATABASE_ACQUIRE_TIMEOUT_MS',
      'DATABASE_STATEMENT_TIMEOUT_MS',
      'DATABASE_IDLE_TIMEOUT_SECONDS',
      'DATABASE_MAX_LIFETIME_SECONDS',
    ]) {
      expect(issues.join('\n')).toContain(name);
    }
  });
});
