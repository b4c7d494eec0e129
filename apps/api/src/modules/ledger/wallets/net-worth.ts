/**
 * What a wallet is worth, now and at the end of past periods (pure: the service loads the rows).
 *
 * - A manual-valuation wallet is worth its `currentValue` (null = 0); in the past, the last value recorded
 *   on or before the day (nothing recorded yet = 0).
 * - A LOAN wallet with loan terms is worth minus the principal its schedule still owes on the day (0 before
 *   the loan starts and after the last payment); its entries and opening balance do not count. In the past,
 *   the schedule of the terms recorded on or before the day (before the first record, the first terms).
 * - Any other wallet is worth its balance: the opening balance plus its confirmed incomes minus its confirmed
 *   expenses. In the past: the entries dated up to the day, and the opening balance from the day the wallet
 *   was created. MINUS and CARD wallets count as they are, negative included: a MINUS wallet's credit-line terms
 *   (limit, rate, term) do not change its value, which is what is drawn (L33).
 *
 * Positive values add to the assets, negative ones to the liabilities.
 */
import type { LoanMethod, NetWorth, NetWorthPoint, WalletType } from '@nestegg/contract';
import { type CalendarDate, type LoanTerms, outstandingPrincipal, type Period } from '@nestegg/domain';

export interface ValuedWallet {
  id: number;
  type: WalletType;
  openingBalance: number;
  balance: number;
  /** The day (service time zone) the wallet was created: its opening balance counts from then. */
  createdOn: CalendarDate;
  manualValuation: boolean;
  currentValue: number | null;
  /** The current terms: what decides whether the wallet is valued as a loan, and its value now. */
  loan: LoanTerms | null;
  /** The terms recorded over time, oldest first (the trend reads them; none = the current terms throughout). */
  loanHistory?: LoanVersion[];
}

/** Loan terms as they stood from a day on (`wallet_loan_history`). */
export interface LoanVersion {
  validFrom: CalendarDate;
  terms: LoanTerms;
}

export interface LoanColumns {
  type: WalletType;
  loanAmount: number | null;
  loanRate: string | null;
  loanMethod: LoanMethod | null;
  loanMonths: number | null;
  loanStart: string | null;
}

/** The amortization terms of a LOAN wallet whose terms are complete; null otherwise. */
export function loanTermsOf(wallet: LoanColumns): LoanTerms | null {
  const { type, loanAmount, loanMethod, loanMonths, loanStart } = wallet;
  if (type !== 'LOAN' || loanAmount === null || loanMethod === null || loanMonths === null || loanStart === null) {
    return null;
  }
  return {
    amount: loanAmount,
    annualRatePercent: wallet.loanRate,
    method: loanMethod,
    months: loanMonths,
    start: loanStart,
  };
}

/** What a wallet's value today depends on (its history and creation day only matter to the trend). */
export type WalletNow = Pick<ValuedWallet, 'type' | 'balance' | 'manualValuation' | 'currentValue' | 'loan'>;

/** Today's value of a wallet. */
export function valueToday(wallet: WalletNow, today: CalendarDate): number {
  if (wallet.manualValuation) return wallet.currentValue ?? 0;
  if (wallet.loan) return -outstandingPrincipal(wallet.loan, today);
  return wallet.balance;
}

const clampMoney = (value: number) => Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, value));

interface Totals {
  assets: number;
  liabilities: number;
  netWorth: number;
}

function totalsOf(values: number[]): Totals {
  let assets = 0;
  let liabilities = 0;
  for (const value of values) {
    if (value > 0) assets += value;
    else liabilities -= value;
  }
  // Sums beyond 2^53 cannot be sent exactly as JSON numbers: they saturate instead of failing the answer.
  return {
    assets: clampMoney(assets),
    liabilities: clampMoney(liabilities),
    netWorth: clampMoney(assets - liabilities),
  };
}

/** Net worth now: totals and the value per wallet type (types the member holds, in the contract's order). */
export function netWorthNow(wallets: WalletNow[], today: CalendarDate, typeOrder: readonly WalletType[]): NetWorth {
  const values = wallets.map((wallet) => valueToday(wallet, today));
  const byType = new Map<WalletType, number>();
  wallets.forEach((wallet, index) => {
    byType.set(wallet.type, (byType.get(wallet.type) ?? 0) + values[index]!);
  });
  return {
    asOf: today,
    ...totalsOf(values),
    byType: typeOrder
      .filter((type) => byType.has(type))
      .map((type) => ({ type, amount: clampMoney(byType.get(type)!) })),
  };
}

/**
 * Per wallet: the sum of its confirmed entries dated in each period after the first (slot i), and of those
 * dated after today (slot = number of periods). Entries up to the first point are not read: they are what
 * the balance holds beyond these.
 */
export type EntryBuckets = Map<number, number[]>;
/** Per manual wallet and period: the last value recorded in that period (the first also looks before it). */
export type ValueBuckets = Map<number, (number | undefined)[]>;

/**
 * The loan terms in force at the end of each period: the last recorded on or before it; before the first
 * record, the first (a loan entered today with an old start still shows its past); nothing recorded, `current`.
 */
function loanTermsOver(current: LoanTerms, versions: LoanVersion[], periods: Period[]): LoanTerms[] {
  if (versions.length === 0) return periods.map(() => current);
  let next = 0; // the first version that starts after the period's end
  return periods.map((period) => {
    while (next < versions.length && versions[next]!.validFrom <= period.end) next += 1;
    return versions[Math.max(0, next - 1)]!.terms;
  });
}

/** A wallet's value at the end of each period. */
function valuesOver(wallet: ValuedWallet, periods: Period[], entries: EntryBuckets, history: ValueBuckets): number[] {
  const { loan } = wallet;
  if (wallet.manualValuation) {
    const recorded = history.get(wallet.id) ?? [];
    let last = 0;
    return periods.map((_, index) => {
      last = recorded[index] ?? last;
      return last;
    });
  }
  if (loan) {
    const terms = loanTermsOver(loan, wallet.loanHistory ?? [], periods);
    return periods.map((period, index) => -outstandingPrincipal(terms[index]!, period.end));
  }
  const sums = entries.get(wallet.id) ?? [];
  const allEntries = wallet.balance - wallet.openingBalance;
  // What was entered after the end of period i: every slot after i.
  let after = sums.reduce((total, sum) => total + (sum ?? 0), 0);
  return periods.map((period, index) => {
    after -= sums[index] ?? 0;
    return allEntries - after + (wallet.createdOn <= period.end ? wallet.openingBalance : 0);
  });
}

/** The trend's points, oldest first. */
export function trendPoints(
  wallets: ValuedWallet[],
  periods: Period[],
  entries: EntryBuckets,
  history: ValueBuckets,
): NetWorthPoint[] {
  const perWallet = wallets.map((wallet) => valuesOver(wallet, periods, entries, history));
  return periods.map((period, index) => ({
    start: period.start,
    ...totalsOf(perWallet.map((values) => values[index]!)),
  }));
}
