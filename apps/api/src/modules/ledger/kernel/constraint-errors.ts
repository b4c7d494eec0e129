import { AppError, type FieldIssue, NotFoundError, ValidationFailedError } from '../../../lib/errors.js';
import {
  AmountOutOfRangeError,
  FOREIGN_KEY_VIOLATION,
  isAmountOutOfRange,
  pgErrorCode,
} from '../../../lib/pg-error.js';

const CHECK_VIOLATION = '23514';

/** What each CHECK of the ledger rows protects, said as the field the client sent. */
const checkIssues: Record<string, FieldIssue> = {
  account_entry_amount_positive: { path: 'body.amount', message: 'must be greater than 0' },
  account_entry_installment_months_range: {
    path: 'body.installmentMonths',
    message: 'instalments (2..24) are for EXPENSE entries only',
  },
  account_entry_foreign_all_or_none: {
    path: 'body.currency',
    message: 'currency, originalAmount and exchangeRate are set together or not at all',
  },
};

/** Foreign keys whose violation means "that is not yours (any more)". */
const missingByForeignKey: Record<string, () => AppError> = {
  account_entry_account_fk: () => new NotFoundError('wallet'),
  quick_entry_account_fk: () => new NotFoundError('wallet'),
  entry_tag_entry_fk: () => new NotFoundError('entry'),
  entry_tag_tag_fk: () => new AppError('UNKNOWN_TAG', 'A tag is not one of yours.'),
};

function constraintOf(error: unknown): string | undefined {
  const failed = error as { constraint_name?: unknown; cause?: { constraint_name?: unknown } } | null;
  const name = failed?.cause?.constraint_name ?? failed?.constraint_name;
  return typeof name === 'string' ? name : undefined;
}

/**
 * The client's view of a ledger row the database refused: a partial update that leaves the stored row
 * breaking a CHECK is 400 `VALIDATION_FAILED` naming the field, a wallet or tag that vanished meanwhile is
 * what a missing one is. Anything else is rethrown as it is.
 */
export function translateConstraintError(error: unknown): unknown {
  const code = pgErrorCode(error);
  const constraint = constraintOf(error);
  if (isAmountOutOfRange(error)) return new AmountOutOfRangeError();
  if (code === CHECK_VIOLATION) {
    const issue = constraint ? checkIssues[constraint] : undefined;
    return new ValidationFailedError([issue ?? { path: 'body', message: 'the entry would break a rule' }]);
  }
  if (code === FOREIGN_KEY_VIOLATION && constraint && missingByForeignKey[constraint]) {
    return missingByForeignKey[constraint]();
  }
  return error;
}

/** Runs a write and translates the database's refusals (see `translateConstraintError`). */
export async function withConstraintErrors<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw translateConstraintError(error);
  }
}
