import { availableParallelism } from 'node:os';

/** libuv's default thread pool size, used when `UV_THREADPOOL_SIZE` is unset or not a number. */
const LIBUV_DEFAULT_POOL_SIZE = 4;

/** libuv's thread pool size as this process sees it (`UV_THREADPOOL_SIZE`, read by libuv at its first use). */
export function libuvThreadPoolSize(source: Record<string, string | undefined> = process.env): number {
  const size = Number.parseInt(source.UV_THREADPOOL_SIZE ?? '', 10);
  return Number.isInteger(size) && size > 0 ? Math.min(size, 1024) : LIBUV_DEFAULT_POOL_SIZE;
}

/**
 * Decision FS1: argon2 hashes computed at once, by default. Each argon2id hash (one lane) runs on one
 * libuv pool thread and keeps one core busy for its whole length, so:
 * - leave a core for the event loop: `cores - 1` (at least 1); on 2 cores, 1 hash at a time;
 * - leave a pool thread for everything else that runs there (salt generation by `crypto.randomBytes`,
 *   `dns.lookup`, file reads, zlib): at most `pool size - 1`, 3 with libuv's default of 4. Raise
 *   `UV_THREADPOOL_SIZE` to let more cores hash.
 */
export function defaultPasswordHashConcurrency(
  cores: number = availableParallelism(),
  poolSize: number = libuvThreadPoolSize(),
): number {
  return Math.max(1, Math.min(cores - 1, poolSize - 1));
}
