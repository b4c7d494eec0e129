import argon2 from 'argon2';
import bcrypt from 'bcryptjs';
import { OverloadedError } from '../../../lib/errors.js';
import { defaultPasswordHashConcurrency } from '../../../lib/hash-concurrency.js';

/** OWASP's recommended argon2id settings: 19 MiB of memory, 2 iterations, 1 lane. */
export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

const isBcryptHash = (hash: string) => /^\$2[abxy]\$/.test(hash);

export interface PasswordCheck {
  ok: boolean;
  /** A fresh argon2id hash to store when the old one was bcrypt or weaker settings. */
  rehash?: string;
}

export interface PasswordHasherOptions {
  /**
   * Hashes computed at once. Each takes a libuv pool thread and a core for its whole length; by default
   * one core fewer than the machine has, and one pool thread fewer than libuv's (decision FS1).
   */
  concurrency: number;
  /** Waiting hashes beyond which new ones are shed at once. */
  maxQueued: number;
  /** How long a hash may wait for its turn before it is shed. */
  maxWaitMs: number;
  /** Metrics: how long each hash waited for its turn, and each one shed (`queue_full`, `wait`). */
  recordWait?: (seconds: number) => void;
  recordShed?: (reason: 'password_hash_queue_full' | 'password_hash_wait') => void;
}

/**
 * Decisions M20 and FS1: as many at a time as the cores allow (leaving one for the event loop), at most 32
 * waiting, none waiting longer than 2 seconds (PASSWORD_HASH_* settings).
 */
export const DEFAULT_HASHER_OPTIONS: PasswordHasherOptions = {
  concurrency: defaultPasswordHashConcurrency(),
  maxQueued: 32,
  maxWaitMs: 2000,
};

/** The detail of a 503 from the hash queue, so it reads apart from the edge's load shedding. */
export const PASSWORD_QUEUE_FULL = 'Too many passwords are being checked right now. Try again in a few seconds.';

/** The hash queue is full or a hash waited past its bound: 503 OVERLOADED with Retry-After, like the edge's. */
export class PasswordQueueFullError extends OverloadedError {
  constructor() {
    super();
    this.message = PASSWORD_QUEUE_FULL;
  }
}

/**
 * argon2id hashing and verification behind a bounded queue: a flood of logins cannot build an unbounded
 * backlog that delays every genuine login; the excess is shed at once with 503 OVERLOADED (Retry-After).
 */
export class PasswordHasher {
  private running = 0;
  private readonly waiting: Array<{ start: () => void; timer: NodeJS.Timeout }> = [];
  private dummyHash: Promise<string> | undefined;

  constructor(private readonly options: PasswordHasherOptions = DEFAULT_HASHER_OPTIONS) {}

  hash(password: string): Promise<string> {
    return this.run(() => argon2.hash(password, ARGON2_OPTIONS));
  }

  /**
   * Verifies against an argon2id hash, or a bcrypt hash carried over from the old system; a match on a
   * bcrypt (or outdated argon2) hash comes back with a new argon2id hash to store.
   */
  async check(password: string, hash: string): Promise<PasswordCheck> {
    const ok = await this.run(() =>
      isBcryptHash(hash) ? bcrypt.compare(password, hash) : argon2.verify(hash, password).catch(() => false),
    );
    if (!ok) return { ok };
    const outdated = isBcryptHash(hash) || argon2.needsRehash(hash, ARGON2_OPTIONS);
    return outdated ? { ok, rehash: await this.hash(password) } : { ok };
  }

  /** Verifying against this when no account matches keeps "no such e-mail" and "wrong password" alike in time. */
  async burn(password: string): Promise<void> {
    this.dummyHash ??= argon2.hash('nestegg-timing-equaliser', ARGON2_OPTIONS);
    const dummy = await this.dummyHash;
    await this.run(() => argon2.verify(dummy, password).catch(() => false));
  }

  private async run<T>(task: () => Promise<T>): Promise<T> {
    await this.turn();
    try {
      return await task();
    } finally {
      this.running -= 1;
      this.waiting.shift()?.start();
    }
  }

  /** Hashes waiting for their turn (metrics). */
  get queued(): number {
    return this.waiting.length;
  }

  private turn(): Promise<void> {
    const { recordWait, recordShed } = this.options;
    if (this.running < this.options.concurrency) {
      this.running += 1;
      recordWait?.(0);
      return Promise.resolve();
    }
    if (this.waiting.length >= this.options.maxQueued) {
      recordShed?.('password_hash_queue_full');
      return Promise.reject(new PasswordQueueFullError());
    }
    const queuedAt = performance.now();
    return new Promise((resolve, reject) => {
      const entry = {
        start: () => {
          clearTimeout(entry.timer);
          this.running += 1;
          recordWait?.((performance.now() - queuedAt) / 1000);
          resolve();
        },
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(entry), 1);
          recordShed?.('password_hash_wait');
          reject(new PasswordQueueFullError());
        }, this.options.maxWaitMs),
      };
      this.waiting.push(entry);
    });
  }
}
