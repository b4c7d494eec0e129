import argon2 from 'argon2';

/** The api's settings (apps/api/src/modules/auth/passwords.ts); a drift makes the api rehash, which the SQL check shows. */
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
