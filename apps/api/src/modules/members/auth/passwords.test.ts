import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadEnv } from '../../../env.js';
import { defaultPasswordHashConcurrency, libuvThreadPoolSize } from '../../../lib/hash-concurrency.js';
import { DEFAULT_HASHER_OPTIONS, PASSWORD_QUEUE_FULL, PasswordHasher, PasswordQueueFullError } from './passwords.js';

describe('password-hash concurrency by default (decision FS1)', () => {
  it('leaves a core for the event loop, and a libuv pool thread for everything else', () => {
    expect(defaultPasswordHashConcurrency(1, 4)).toBe(1);
    expect(defaultPasswordHashConcurrency(2, 4)).toBe(1);
    expect(defaultPasswordHashConcurrency(3, 4)).toBe(2);
    expect(defaultPasswordHashConcurrency(8, 4)).toBe(3);
    expect(defaultPasswordHashConcurrency(8, 16)).toBe(7);
    expect(defaultPasswordHashConcurrency(8, 1)).toBe(1);
  });

  it('reads the pool size from UV_THREADPOOL_SIZE, else libuv’s 4', () => {
    expect(libuvThreadPoolSize({})).toBe(4);
    expect(libuvThreadPoolSize({ UV_THREADPOOL_SIZE: '16' })).toBe(16);
    expect(libuvThreadPoolSize({ UV_THREADPOOL_SIZE: 'lots' })).toBe(4);
    expect(libuvThreadPoolSize({ UV_THREADPOOL_SIZE: '0' })).toBe(4);
  });

  it('is what the api uses when PASSWORD_HASH_CONCURRENCY is unset; on this machine', () => {
    const expected = Math.max(1, Math.min(availableParallelism() - 1, libuvThreadPoolSize() - 1));
    expect(defaultPasswordHashConcurrency()).toBe(expected);
    expect(DEFAULT_HASHER_OPTIONS.concurrency).toBe(expected);
    expect(loadEnv({ DATABASE_URL: 'postgres://localhost/x' }).PASSWORD_HASH_CONCURRENCY).toBe(expected);
    expect(loadEnv({ DATABASE_URL: 'postgres://localhost/x', PASSWORD_HASH_CONCURRENCY: '6' })).toMatchObject({
      PASSWORD_HASH_CONCURRENCY: 6,
    });
  });
});

describe('the password-hash queue', () => {
  const internals = (hasher: PasswordHasher) => hasher as unknown as { running: number };

  it('computes at most `concurrency` at once; the rest wait their turn', async () => {
    const hasher = new PasswordHasher({ concurrency: 2, maxQueued: 10, maxWaitMs: 60_000 });
    let most = 0;
    const timer = setInterval(() => {
      most = Math.max(most, internals(hasher).running);
    }, 1);
    try {
      const hashes = await Promise.all(Array.from({ length: 6 }, (_, i) => hasher.hash(`pass phrase ${i}`)));
      expect(hashes.every((hash) => hash.startsWith('$argon2id$'))).toBe(true);
    } finally {
      clearInterval(timer);
    }
    expect(most).toBe(2);
  });

  it('sheds past its queue bound and its wait bound with a 503 of its own detail', async () => {
    const hasher = new PasswordHasher({ concurrency: 1, maxQueued: 1, maxWaitMs: 1 });
    const [running, waiting, refused] = await Promise.allSettled([
      hasher.hash('first pass phrase'),
      hasher.hash('second pass phrase'),
      hasher.hash('third pass phrase'),
    ]);
    expect(running.status).toBe('fulfilled');
    for (const shed of [waiting, refused]) {
      expect(shed).toMatchObject({ status: 'rejected', reason: expect.any(PasswordQueueFullError) });
      const error = (shed as PromiseRejectedResult).reason as PasswordQueueFullError;
      expect([error.status, error.code, error.message, error.retryAfterSeconds]).toEqual([
        503,
        'OVERLOADED',
        PASSWORD_QUEUE_FULL,
        5,
      ]);
    }
  });
});
