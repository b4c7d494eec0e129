import { databaseUrlProblem, readDatabaseUrlProblem } from '@nestegg/db/url';
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

/** The scheme of `value`, or '' when it is no URL (a refinement runs after `.url()` failed: it must not throw). */
function protocolOf(value: string): string {
  try {
    return new URL(value).protocol;
  } catch {
    return '';
  }
}

/**
 * A PostgreSQL URL as libpq writes it: one host or several (`postgres://u@h1:5432,h2:5432/db?target_session_attrs=
 * read-write`), read by `@nestegg/db` as every process connects (decision FO33). What it cannot use is an issue naming
 * the variable, never a thrown error.
 */
export const postgresUrl = z.string().superRefine((value, context) => {
  const problem = databaseUrlProblem(value);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});
/** `DATABASE_READ_URL`: the same forms, with a reader's `target_session_attrs` (`any`, `standby`, `prefer-standby`). */
export const readPostgresUrl = z.string().superRefine((value, context) => {
  const problem = readDatabaseUrlProblem(value);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});
export const redisUrl = z
  .string()
  .url()
  .refine((value) => /^rediss?:$/.test(protocolOf(value)), 'expected a redis:// or rediss:// URL');
export const httpUrl = z
  .string()
  .url()
  .refine((value) => /^https?:$/.test(protocolOf(value)), 'expected an http(s) URL');

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
