import { CronExpressionParser } from 'cron-parser';
import { z } from 'zod';

export const nodeEnv = z.enum(['development', 'test', 'production']).default('development');
export const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

/**
 * The address a listener binds: this machine only, unless told otherwise. The images set `0.0.0.0`, where traffic
 * arrives on the container's own interface (decision I7).
 */
export const listenHost = z.string().default('127.0.0.1');

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
export const positiveInt = (fallback: number, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(1).max(max).default(fallback);

export const booleanFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'], { message: 'expected true or false' })
    .default(fallback ? 'true' : 'false')
    .transform((value) => value === 'true' || value === '1');

/** `a, b,c` → `['a', 'b', 'c']`; unset → `[]`. */
export const commaList = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean),
  );

export const postgresUrl = z
  .string()
  .url()
  .refine((value) => /^postgres(ql)?:$/.test(new URL(value).protocol), 'expected a postgres:// URL');
export const redisUrl = z
  .string()
  .url()
  .refine((value) => /^rediss?:$/.test(new URL(value).protocol), 'expected a redis:// or rediss:// URL');
export const httpUrl = z
  .string()
  .url()
  .refine((value) => /^https?:$/.test(new URL(value).protocol), 'expected an http(s) URL');

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const timeZone = (fallback = 'UTC') =>
  z.string().default(fallback).refine(isTimeZone, 'must be an IANA time zone such as Asia/Seoul');

export function isCronExpression(expression: string): boolean {
  if (expression.trim().split(/\s+/).length !== 5) return false;
  try {
    CronExpressionParser.parse(expression);
    return true;
  } catch {
    return false;
  }
}

/** A five-field cron expression (minute hour day-of-month month day-of-week), as the job engine takes. */
export const cronExpression = (fallback: string) =>
  z.string().default(fallback).refine(isCronExpression, 'must be a five-field cron expression such as "17 3 * * *"');
