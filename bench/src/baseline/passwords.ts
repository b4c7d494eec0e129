import { defaultPasswordHashConcurrency } from '@nestegg/api/hash-concurrency';
import argon2 from 'argon2';

/** The api's settings (apps/api/src/modules/members/auth/passwords.ts); a drift makes the api rehash, which the SQL check shows. */
export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

let referenceHash: Promise<string> | undefined;

/** Raw `argon2.verify` throughput with `concurrency` verifications in flight: the ceiling of any login. */
export async function argon2VerificationsPerSecond(seconds: number, concurrency: number): Promise<number> {
  referenceHash ??= argon2.hash('reference password', ARGON2_OPTIONS);
  const hash = await referenceHash;
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      await argon2.verify(hash, 'reference password');
      done += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return done / ((performance.now() - started) / 1000);
}

/**
 * The api's default bound on verifications at once (decision FS1: the cores less one, so a core is left to the
 * event loop; 1 on 2 cores). The baseline verifies under the same bound, so the login row compares the api's
 * work around argon2 with the baseline's, not two hashing policies; the raw reference runs unbounded.
 */
export const HASH_CONCURRENCY = defaultPasswordHashConcurrency();

let running = 0;
const waiting: Array<() => void> = [];

/** `argon2.verify` with at most HASH_CONCURRENCY in flight, first come first served. */
export async function boundedVerify(hash: string, password: string): Promise<boolean> {
  if (running >= HASH_CONCURRENCY) await new Promise<void>((resolve) => waiting.push(resolve));
  else running += 1;
  try {
    return await argon2.verify(hash, password).catch(() => false);
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}
