import type { CreditLine, Wallet } from '@nestegg/contract';
import { account } from '@nestegg/db';
import { creditLineOf } from '@nestegg/domain';
import type { AccountNumberCipher } from './account-numbers.js';

/** The wallet columns every read selects (the delta sync reads the same ones). */
export const walletColumns = {
  id: account.id,
  name: account.name,
  type: account.type,
  accountNumber: account.accountNumber,
  cardCompany: account.cardCompany,
  openingBalance: account.openingBalance,
  balance: account.balance,
  sortOrder: account.sortOrder,
  loanAmount: account.loanAmount,
  loanRate: account.loanRate,
  loanMethod: account.loanMethod,
  loanMonths: account.loanMonths,
  loanStart: account.loanStart,
  manualValuation: account.manualValuation,
  currentValue: account.currentValue,
  createdAt: account.createdAt,
  updatedAt: account.updatedAt,
};

export interface WalletRow {
  id: number;
  name: string;
  type: Wallet['type'];
  accountNumber: string | null;
  cardCompany: string | null;
  openingBalance: number;
  balance: number;
  sortOrder: number;
  loanAmount: number | null;
  loanRate: string | null;
  loanMethod: Wallet['loanMethod'];
  loanMonths: number | null;
  loanStart: string | null;
  manualValuation: boolean;
  currentValue: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The response shape of a stored wallet (a `WalletRow` or a whole `account` row, as the delta sync reads
 * it), the account number decrypted.
 */
export function toWallet(row: WalletRow, accountNumbers: AccountNumberCipher): Wallet {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    accountNumber: accountNumbers.decrypt(row.accountNumber),
    cardCompany: row.cardCompany,
    openingBalance: row.openingBalance,
    balance: row.balance,
    sortOrder: row.sortOrder,
    loanAmount: row.loanAmount,
    loanRate: row.loanRate,
    loanMethod: row.loanMethod,
    loanMonths: row.loanMonths,
    loanStart: row.loanStart,
    manualValuation: row.manualValuation,
    currentValue: row.currentValue,
    creditLine: creditLineOfRow(row),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** A MINUS wallet with a limit is a credit line (decision L33): what is drawn, left and accruing. */
function creditLineOfRow(row: WalletRow): CreditLine | null {
  if (row.type !== 'MINUS' || row.loanAmount === null) return null;
  return creditLineOf(
    { limit: row.loanAmount, annualRatePercent: row.loanRate, months: row.loanMonths, start: row.loanStart },
    row.balance,
  );
}
