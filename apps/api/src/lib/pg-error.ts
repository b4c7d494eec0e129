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
