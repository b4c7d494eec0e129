import { AppError, BadRequestError } from './errors.js';

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

export const CHECK_VIOLATION = '23514';

/** The constraint a failed statement broke, when the driver names one. */
export function pgConstraint(error: unknown): string | undefined {
  if (error instanceof AppError) return undefined;
  const failed = error as { constraint_name?: unknown; cause?: { constraint_name?: unknown } } | null;
  const name = failed?.cause?.constraint_name ?? failed?.constraint_name;
  return typeof name === 'string' ? name : undefined;
}

/**
 * The checks that keep a member's sums within what a JS number reads exactly (decision FI2): the member's
 * ledger volume (kept by triggers) and each wallet balance.
 */
const AMOUNT_BOUNDS = new Set(['ledger_volume_safe', 'account_balance_safe']);

/** Whether a write was refused because it would take the member's amounts past 2^53 − 1. */
export function isAmountOutOfRange(error: unknown): boolean {
  const constraint = pgConstraint(error);
  return pgErrorCode(error) === CHECK_VIOLATION && constraint !== undefined && AMOUNT_BOUNDS.has(constraint);
}

/** 400 `AMOUNT_OUT_OF_RANGE`: what a write refused by `isAmountOutOfRange` answers. */
export class AmountOutOfRangeError extends BadRequestError {
  constructor() {
    super(
      'AMOUNT_OUT_OF_RANGE',
      'Your amounts (entries, wallet balances and values, budgets) would add up past 9007199254740991; nothing was saved.',
    );
  }
}
