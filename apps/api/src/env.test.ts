import { describe, expect, it } from 'vitest';
import { InvalidEnvironmentError, loadEnv } from './env.js';

describe('loadEnv', () => {
  it('fails fast with one message naming every bad variable', () => {
    expect(() => loadEnv({ PORT: 'abc' })).toThrowError(InvalidEnvironmentError);
    try {
      loadEnv({ PORT: 'abc' });
    } catch (error) {
      expect((error as Error).message).toContain('DATABASE_URL');
      expect((error as Error).message).toContain('PORT');
    }
  });

  it('applies defaults and parses the trusted-proxy setting', () => {
    const env = loadEnv({ DATABASE_URL: 'postgres://localhost/x', TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' });
    expect(env.PORT).toBe(3000);
    expect(env.REDIS_URL).toBeUndefined();
    expect(env.TRUST_PROXY).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(loadEnv({ DATABASE_URL: 'postgres://localhost/x', TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
  });
});
