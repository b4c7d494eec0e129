import { FREE_WALLET_LIMITS, type WalletType } from '@nestegg/contract';
import { account, type DbOrTx } from '@nestegg/db';
import { and, eq, ne, sql } from 'drizzle-orm';
import { BadRequestError, ValidationFailedError } from '../../../lib/errors.js';
import { loanTermIssues } from './loan-terms.js';
import type { LoanColumns } from './net-worth.js';

/** FREE per-type limit; call with the wallet set locked. `exceptId`: the wallet changing its type. */
export async function assertUnderWalletLimit(
  tx: DbOrTx,
  memberId: number,
  type: WalletType,
  exceptId?: number,
): Promise<void> {
  const limit = FREE_WALLET_LIMITS[type];
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(account)
    .where(
      and(eq(account.memberId, memberId), eq(account.type, type), exceptId ? ne(account.id, exceptId) : undefined),
    );
  if ((row?.n ?? 0) >= limit) {
    throw new BadRequestError(
      'WALLET_LIMIT',
      `A FREE membership holds at most ${limit} ${type} wallets. Upgrade to PREMIUM for more.`,
    );
  }
}

/**
 * Loan terms only where they mean something (LOAN: a schedule; MINUS: a credit line) and complete, so a wallet
 * is valued by a whole schedule or by its balance, never by half a schedule (loan-terms.ts). Checked on the
 * wallet as it will be stored (an update merges into the stored row).
 */
export function assertLoanTerms(wallet: LoanColumns): void {
  const issues = loanTermIssues(wallet).map(({ field, message }) => ({ path: `body.${field}`, message }));
  if (issues.length > 0) throw new ValidationFailedError(issues);
}
