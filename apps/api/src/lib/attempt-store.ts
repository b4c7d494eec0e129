import type { Result } from 'ioredis';
import type { RedisClient } from './redis.js';

/** The answer to "may this attempt go ahead?"; when not, how long until it may. */
export interface Reservation {
  allowed: boolean;
  retryAfterMs: number;
}

/** Failures of one account that lock it for a growing time, except for addresses it already used. */
export interface BackoffPolicy {
  /** Failures allowed before any lock. */
  freeFailures: number;
  /** Lock after the first failure past the free ones; it doubles with each further failure. */
  baseLockMs: number;
  maxLockMs: number;
  /** The failure count is forgotten this long after the last failure. */
  forgetAfterMs: number;
  /** How long an address stays known after a success from it. */
  knownForMs: number;
}

/**
 * Counters for attempt limits, reserved atomically BEFORE the slow check (a password verification), so
 * parallel attempts cannot all pass a limit that was only read. Redis holds them across api replicas;
 * without Redis an in-process store serves a single instance.
 */
export interface AttemptStore {
  /**
   * Counts an attempt against `key` (e.g. an IP) as a failure attributed to `attribution` (e.g. the
   * account tried), unless `key` already holds `max` failures in its fixed window.
   */
  reserve(key: string, attribution: string, max: number, windowMs: number): Promise<Reservation>;
  /** Forgets the failures of `key` attributed to `attribution` (its success clears its own failures only). */
  clear(key: string, attribution: string): Promise<void>;
  /** Takes back one reserved attempt that turned out to be neither a failure nor a success. */
  release(key: string, attribution: string): Promise<void>;
  /** Per-account backoff: counts the attempt unless the account is locked; addresses in `known` are exempt. */
  reserveWithBackoff(key: string, address: string, policy: BackoffPolicy, nowMs: number): Promise<Reservation>;
  /** A success: the account's failures are forgotten and the address becomes known for it. */
  succeedWithBackoff(key: string, address: string, policy: BackoffPolicy): Promise<void>;
}

/**
 * A counter's keys carry its logical key as their hash tag (decision R2): the backoff scripts touch the
 * account's failures and its known addresses together, which a Redis Cluster allows only within one slot,
 * and different accounts, addresses and members spread over the shards. Every logical key starts with
 * its limit's name (`login-account:`, `gate:`, …), so the tag is never empty, and a brace inside it (an
 * e-mail may hold one) ends the tag at the same place in both keys, which still share a slot.
 */
const counterKey = (key: string) => `attempts:{${key}}`;
const knownKey = (counter: string) => `${counter}:known`;

/** KEYS: hash. ARGV: attribution, max, window ms. */
const RESERVE_SCRIPT = `
local total = 0
for _, value in ipairs(redis.call('HVALS', KEYS[1])) do total = total + tonumber(value) end
if total >= tonumber(ARGV[2]) then return {0, redis.call('PTTL', KEYS[1])} end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return {1, 0}
`;

/** KEYS: hash. ARGV: attribution. */
const RELEASE_SCRIPT = `
if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
return 1
`;

/** KEYS: account hash, known set. ARGV: address, now, free, base lock, max lock, forget after. */
const BACKOFF_SCRIPT = `
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return {1, 0} end
local failures = tonumber(redis.call('HGET', KEYS[1], 'failures') or '0')
local last = tonumber(redis.call('HGET', KEYS[1], 'last') or '0')
local now = tonumber(ARGV[2])
local free = tonumber(ARGV[3])
if failures >= free then
  local lock = math.min(tonumber(ARGV[4]) * (2 ^ (failures - free)), tonumber(ARGV[5]))
  if now < last + lock then return {0, math.ceil(last + lock - now)} end
end
redis.call('HINCRBY', KEYS[1], 'failures', 1)
redis.call('HSET', KEYS[1], 'last', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return {1, 0}
`;

/** KEYS: account hash, known set. ARGV: address, known for ms. */
const SUCCEED_SCRIPT = `
redis.call('DEL', KEYS[1])
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    attemptReserve(key: string, attribution: string, max: number, windowMs: number): Result<[number, number], Context>;
    attemptRelease(key: string, attribution: string): Result<number, Context>;
    attemptBackoff(
      key: string,
      known: string,
      address: string,
      nowMs: number,
      free: number,
      baseMs: number,
      maxMs: number,
      forgetMs: number,
    ): Result<[number, number], Context>;
    attemptSucceed(key: string, known: string, address: string, knownForMs: number): Result<number, Context>;
  }
}

const reservation = ([allowed, retryAfterMs]: [number, number]): Reservation => ({
  allowed: allowed === 1,
  retryAfterMs: Math.max(0, retryAfterMs),
});

export class RedisAttemptStore implements AttemptStore {
  constructor(private readonly redis: RedisClient) {
    if (typeof redis.attemptReserve === 'function') return;
    redis.defineCommand('attemptReserve', { numberOfKeys: 1, lua: RESERVE_SCRIPT });
    redis.defineCommand('attemptRelease', { numberOfKeys: 1, lua: RELEASE_SCRIPT });
    redis.defineCommand('attemptBackoff', { numberOfKeys: 2, lua: BACKOFF_SCRIPT });
    redis.defineCommand('attemptSucceed', { numberOfKeys: 2, lua: SUCCEED_SCRIPT });
  }

  async reserve(key: string, attribution: string, max: number, windowMs: number) {
    return reservation(await this.redis.attemptReserve(counterKey(key), attribution, max, windowMs));
  }

  async clear(key: string, attribution: string) {
    await this.redis.hdel(counterKey(key), attribution);
  }

  async release(key: string, attribution: string) {
    await this.redis.attemptRelease(counterKey(key), attribution);
  }

  async reserveWithBackoff(key: string, address: string, policy: BackoffPolicy, nowMs: number) {
    const account = counterKey(key);
    return reservation(
      await this.redis.attemptBackoff(
        account,
        knownKey(account),
        address,
        nowMs,
        policy.freeFailures,
        policy.baseLockMs,
        policy.maxLockMs,
        policy.forgetAfterMs,
      ),
    );
  }

  async succeedWithBackoff(key: string, address: string, policy: BackoffPolicy) {
    const account = counterKey(key);
    await this.redis.attemptSucceed(account, knownKey(account), address, policy.knownForMs);
  }
}

interface Window {
  counts: Map<string, number>;
  endsAt: number;
}

/** The same rules in process memory, for a single api instance run without Redis. */
export class MemoryAttemptStore implements AttemptStore {
  private readonly windows = new Map<string, Window>();
  private readonly accounts = new Map<string, { failures: number; last: number; forgetAt: number }>();
  private readonly known = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  async reserve(key: string, attribution: string, max: number, windowMs: number) {
    const window = this.windowOf(key, windowMs);
    const total = [...window.counts.values()].reduce((sum, count) => sum + count, 0);
    if (total >= max) return { allowed: false, retryAfterMs: window.endsAt - this.now() };
    window.counts.set(attribution, (window.counts.get(attribution) ?? 0) + 1);
    return { allowed: true, retryAfterMs: 0 };
  }

  async clear(key: string, attribution: string) {
    this.windows.get(key)?.counts.delete(attribution);
  }

  async release(key: string, attribution: string) {
    const counts = this.windows.get(key)?.counts;
    const left = (counts?.get(attribution) ?? 0) - 1;
    if (left > 0) counts?.set(attribution, left);
    else counts?.delete(attribution);
  }

  async reserveWithBackoff(key: string, address: string, policy: BackoffPolicy, nowMs: number) {
    if ((this.known.get(`${key}|${address}`) ?? 0) > nowMs) return { allowed: true, retryAfterMs: 0 };
    const current = this.accounts.get(key);
    const state = current && current.forgetAt > nowMs ? current : { failures: 0, last: 0, forgetAt: 0 };
    if (state.failures >= policy.freeFailures) {
      const lock = Math.min(policy.baseLockMs * 2 ** (state.failures - policy.freeFailures), policy.maxLockMs);
      if (nowMs < state.last + lock) return { allowed: false, retryAfterMs: state.last + lock - nowMs };
    }
    this.accounts.set(key, { failures: state.failures + 1, last: nowMs, forgetAt: nowMs + policy.forgetAfterMs });
    return { allowed: true, retryAfterMs: 0 };
  }

  async succeedWithBackoff(key: string, address: string, policy: BackoffPolicy) {
    this.accounts.delete(key);
    this.known.set(`${key}|${address}`, this.now() + policy.knownForMs);
  }

  private windowOf(key: string, windowMs: number): Window {
    const current = this.windows.get(key);
    if (current && current.endsAt > this.now()) return current;
    const fresh = { counts: new Map<string, number>(), endsAt: this.now() + windowMs };
    this.windows.set(key, fresh);
    return fresh;
  }
}
