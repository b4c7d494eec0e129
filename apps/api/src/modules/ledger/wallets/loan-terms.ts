/**
 * Which wallets take loan terms, and which terms come together (pure: the routes and the restore worker both
 * check it). Decisions L21 and L33.
 *
 * - LOAN: a loan valued by its amortization schedule: amount, method, months and start come all together (the
 *   rate may stay empty: 0 %), so a wallet is valued either by a whole schedule or by its balance.
 * - MINUS: a credit line (마이너스통장): the amount is the limit, the rate the annual interest on what is drawn,
 *   months and start the line's term. The limit comes with any other term; months and start come together; a
 *   credit line has no repayment method, so the method is null or BULLET (the whole drawn balance is due at
 *   maturity). The wallet is still valued by its balance.
 * - Any other type: no loan terms.
 */
export const loanFields = ['loanAmount', 'loanRate', 'loanMethod', 'loanMonths', 'loanStart'] as const;
export type LoanField = (typeof loanFields)[number];

/** The loan columns of a wallet as it will be stored (absent values as null or undefined). */
export type LoanTermValues = { type: string } & { [field in LoanField]?: unknown };

export interface LoanTermIssue {
  field: LoanField;
  message: string;
}

const requiredLoanFields = ['loanAmount', 'loanMethod', 'loanMonths', 'loanStart'] as const;

export function loanTermIssues(wallet: LoanTermValues): LoanTermIssue[] {
  const has = (field: LoanField) => wallet[field] != null;
  const given = loanFields.filter(has);
  if (given.length === 0) return [];
  if (wallet.type === 'LOAN') {
    return requiredLoanFields
      .filter((field) => !has(field))
      .map((field) => ({ field, message: 'required together with the other loan terms' }));
  }
  if (wallet.type !== 'MINUS') {
    return given.map((field) => ({ field, message: 'loan terms are for LOAN and MINUS wallets only' }));
  }
  const issues: LoanTermIssue[] = [];
  if (!has('loanAmount')) {
    issues.push({ field: 'loanAmount', message: 'the credit limit is required with the other terms of a credit line' });
  }
  if (has('loanMethod') && wallet.loanMethod !== 'BULLET') {
    issues.push({ field: 'loanMethod', message: 'a credit line has no repayment method: null or BULLET' });
  }
  if (has('loanMonths') !== has('loanStart')) {
    const missing = has('loanMonths') ? 'loanStart' : 'loanMonths';
    issues.push({ field: missing, message: "required together with the other term field (the line's term)" });
  }
  return issues;
}
