import { AppError } from './errors.js';

/** The SQLSTATE of a failed query; drizzle 0.45 wraps the driver error and keeps it as `cause`. */
export function pgErrorCode(error: unknown): string | undefined {
  if (error instanceof AppError) return undefined;
  const failed = error as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = failed?.cause?.code ?? failed?.code;
  return typeof code === 'string' ? code : undefined;
}

export const UNIQUE_VIOLATION = '23505';
export const FOREIGN_KEY_VIOLATION = '23503';

/** Class 22 (data exception): a value the column cannot take, e.g. NUL in text (22021) or an overflow (22003). */
export function isDataException(error: unknown): boolean {
  const code = pgErrorCode(error);
  return code?.startsWith('22') === true;
}
