import { describe, expect, it } from 'vitest';
import { loadEnv } from './env.js';

const DATABASE_URL = 'postgres://localhost/x';

describe('loadEnv', () => {
  it('serves health and metrics on this machine only by default; containers set 0.0.0.0 (decision I7)', () => {
    expect(loadEnv({ DATABASE_URL }).WORKER_HOST).toBe('127.0.0.1');
    expect(loadEnv({ DATABASE_URL, WORKER_HOST: '0.0.0.0' }).WORKER_HOST).toBe('0.0.0.0');
  });
});
