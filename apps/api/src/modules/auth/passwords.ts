import argon2 from 'argon2';
import bcrypt from 'bcryptjs';

/** OWASP's recommended argon2id settings: 19 MiB of memory, 2 iterations, 1 lane. */
const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, ARGON2_OPTIONS);
}

const isBcryptHash = (hash: string) => /^\$2[abxy]\$/.test(hash);

export interface PasswordCheck {
  ok: boolean;
  /** A fresh argon2id hash to store when the old one was bcrypt or weaker settings. */
  rehash?: string;
}

/**
 * Verifies against an argon2id hash, or a bcrypt hash carried over from the old system; a match on a
 * bcrypt (or outdated argon2) hash comes back with a new argon2id hash to store.
 */
export async function checkPassword(password: string, hash: string): Promise<PasswordCheck> {
  if (isBcryptHash(hash)) {
    const ok = await bcrypt.compare(password, hash);
    return ok ? { ok, rehash: await hashPassword(password) } : { ok };
  }
  const ok = await argon2.verify(hash, password).catch(() => false);
  if (!ok) return { ok };
  return argon2.needsRehash(hash, ARGON2_OPTIONS) ? { ok, rehash: await hashPassword(password) } : { ok };
}

// Verifying against this when no account matches keeps the timing of "no such e-mail" and
// "wrong password" alike.
let dummyHash: Promise<string> | undefined;
export async function burnPasswordCheck(password: string): Promise<void> {
  dummyHash ??= hashPassword('nestegg-timing-equaliser');
  await argon2.verify(await dummyHash, password).catch(() => false);
}
