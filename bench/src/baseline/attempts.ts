import { type BaselineRedis, scripted } from './scripts.js';

/*
 * The api's login attempt limits (apps/api/src/modules/members/auth/attempt-limits.ts over
 * apps/api/src/lib/attempt-store.ts): an attempt is reserved per IP and per account before the password
 * is checked, and a success clears both. Lua copied verbatim.
 */

const MINUTE = 60_000;
const LOGIN_FAILURES_PER_IP = { max: 10, windowMs: 10 * MINUTE };
const ACCOUNT_BACKOFF = {
  freeFailures: 5,
  baseLockMs: 30_000,
  maxLockMs: 15 * MINUTE,
  forgetAfterMs: 24 * 60 * MINUTE,
  knownForMs: 30 * 24 * 60 * MINUTE,
};

const RESERVE_SCRIPT = `
local total = 0
for _, value in ipairs(redis.call('HVALS', KEYS[1])) do total = total + tonumber(value) end
if total >= tonumber(ARGV[2]) then return {0, redis.call('PTTL', KEYS[1])} end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return {1, 0}
`;

const RELEASE_SCRIPT = `
if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
return 1
`;

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

const SUCCEED_SCRIPT = `
redis.call('DEL', KEYS[1])
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
`;

const attemptScripts = {
  attemptReserve: { numberOfKeys: 1, lua: RESERVE_SCRIPT },
  attemptRelease: { numberOfKeys: 1, lua: RELEASE_SCRIPT },
  attemptBackoff: { numberOfKeys: 2, lua: BACKOFF_SCRIPT },
  attemptSucceed: { numberOfKeys: 2, lua: SUCCEED_SCRIPT },
};

const ipKey = (ip: string) => `attempts:{login-ip:${ip}}`;
const accountKey = (email: string) => `attempts:{login-account:${email}}`;

/** Reserves the attempt; false when a limit refuses it (the api answers 429). */
export async function beginLogin(redis: BaselineRedis, ip: string, email: string): Promise<boolean> {
  const commands = scripted(redis, attemptScripts);
  const [byIp] = (await commands.attemptReserve(
    ipKey(ip),
    email,
    LOGIN_FAILURES_PER_IP.max,
    LOGIN_FAILURES_PER_IP.windowMs,
  )) as [number, number];
  if (byIp !== 1) return false;
  const account = accountKey(email);
  const [byAccount] = (await commands.attemptBackoff(
    account,
    `${account}:known`,
    ip,
    Date.now(),
    ACCOUNT_BACKOFF.freeFailures,
    ACCOUNT_BACKOFF.baseLockMs,
    ACCOUNT_BACKOFF.maxLockMs,
    ACCOUNT_BACKOFF.forgetAfterMs,
  )) as [number, number];
  if (byAccount === 1) return true;
  await commands.attemptRelease(ipKey(ip), email);
  return false;
}

/** A success clears this account's failures from the IP's count and makes the address known to it. */
export async function loginSucceeded(redis: BaselineRedis, ip: string, email: string): Promise<void> {
  await redis.hdel(ipKey(ip), email);
  const account = accountKey(email);
  await scripted(redis, attemptScripts).attemptSucceed(account, `${account}:known`, ip, ACCOUNT_BACKOFF.knownForMs);
}
