import {
  type CreateWalletRequest,
  type LoanMethod,
  type NetWorth,
  type NetWorthTrend,
  type NetWorthTrendQuery,
  SORT_ORDER_MAX,
  type UpdateWalletRequest,
  type Wallet,
  walletTypes,
} from '@nestegg/contract';
import {
  account,
  accountEntry,
  type Database,
  type DbOrTx,
  rawSelect,
  walletLoanHistory,
  walletValueHistory,
} from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import { type CalendarDate, dateIn, trailingPeriods } from '@nestegg/domain';
import { and, asc, desc, eq, lte, sql } from 'drizzle-orm';
import { AppError, BadRequestError, ConflictError, NotFoundError } from '../../../lib/errors.js';
import { lockWalletSet } from '../../../lib/locks.js';
import { pgErrorCode, UNIQUE_VIOLATION } from '../../../lib/pg-error.js';
import { type AccountNumberCipher, type ReencryptionReport, reencryptAccountNumbers } from './account-numbers.js';
import { loanFields } from './loan-terms.js';
import {
  type EntryBuckets,
  type LoanVersion,
  loanTermsOf,
  netWorthNow,
  trendPoints,
  type ValueBuckets,
  type ValuedWallet,
  type WalletNow,
} from './net-worth.js';
import { toWallet, type WalletRow, walletColumns } from './wallet.view.js';
import { assertLoanTerms, assertUnderWalletLimit } from './wallet-rules.js';

export interface WalletsDeps {
  db: Database;
  /** Reads a replica may serve when the request's route allows it (decision DB20); the primary otherwise. */
  reader: Database;
  clock: Clock;
  accountNumbers: AccountNumberCipher;
  /** `APP_TIMEZONE`: the calendar of net-worth days, weeks and months. */
  timeZone: string;
}

/** Who acts: `limited` when the FREE per-type wallet limit applies (FREE and not ADMIN). */
export interface WalletCaller {
  memberId: number;
  limited: boolean;
}

const ofMember = (memberId: number, id: number) => and(eq(account.memberId, memberId), eq(account.id, id));

/**
 * `max(sort_order) + 1` of the member's wallets, evaluated by the insert itself; never past SORT_ORDER_MAX
 * (FI3: new rows share the top place, and the list's id order puts them last).
 */
const nextSortOrder = (memberId: number) =>
  sql<number>`(select least(coalesce(max(${account.sortOrder})::bigint + 1, 0), ${SORT_ORDER_MAX})::int from ${account} where ${account.memberId} = ${memberId})`;

/** A Postgres array literal passed as one parameter, e.g. `{2026-01-05,2026-01-12}`. */
const arrayLiteral = (values: (string | number)[]) => `{${values.join(',')}}`;

/** A name the member already uses → 409. */
async function mapWriteErrors<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof AppError) && pgErrorCode(error) === UNIQUE_VIOLATION) {
      throw new ConflictError('DUPLICATE_NAME', 'Another wallet of yours already has this name.');
    }
    throw error;
  }
}

/** The stored form of the writable fields present in `input` (absent = unchanged, null = cleared). */
function storedFields(input: UpdateWalletRequest, accountNumbers: AccountNumberCipher) {
  const { accountNumber, ...rest } = input;
  const fields: Partial<typeof account.$inferInsert> = Object.fromEntries(
    Object.entries(rest).filter(([, value]) => value !== undefined),
  );
  if (accountNumber !== undefined) fields.accountNumber = accountNumbers.encrypt(accountNumber || null);
  return fields;
}

/** Records the day's manual value (one row per wallet and day: the day's last value wins). */
async function recordValue(tx: DbOrTx, memberId: number, row: WalletRow, day: CalendarDate): Promise<void> {
  const value = row.currentValue ?? 0;
  await tx
    .insert(walletValueHistory)
    .values({ memberId, accountId: row.id, day, value })
    .onConflictDoUpdate({
      target: [walletValueHistory.memberId, walletValueHistory.accountId, walletValueHistory.day],
      set: { value },
    });
}

/**
 * Records the loan terms in force from `day` (one row per wallet and day: the day's last terms win); only for a
 * LOAN wallet whose terms are complete. The net-worth trend values each past day by the terms of then. A credit
 * line's terms (MINUS) are not recorded: they do not value it, and the history reads as a loan's (L33).
 */
async function recordLoanTerms(tx: DbOrTx, memberId: number, row: WalletRow, day: CalendarDate): Promise<void> {
  if (!loanTermsOf(row)) return;
  const terms = {
    loanAmount: row.loanAmount!,
    loanRate: row.loanRate,
    loanMethod: row.loanMethod!,
    loanMonths: row.loanMonths!,
    loanStart: row.loanStart!,
  };
  await tx
    .insert(walletLoanHistory)
    .values({ memberId, accountId: row.id, validFrom: day, ...terms })
    .onConflictDoUpdate({
      target: [walletLoanHistory.memberId, walletLoanHistory.accountId, walletLoanHistory.validFrom],
      set: terms,
    });
}

/** Wallets, their order, and the member's net worth now and over time. */
export class WalletsService {
  private readonly queries;

  constructor(private readonly deps: WalletsDeps) {
    this.queries = prepareQueries(deps.reader);
  }

  async list(memberId: number): Promise<Wallet[]> {
    const rows = await this.queries.list.execute({ memberId });
    return rows.map((row) => toWallet(row, this.deps.accountNumbers));
  }

  async get(memberId: number, id: number): Promise<Wallet> {
    const [row] = await this.deps.db.select(walletColumns).from(account).where(ofMember(memberId, id));
    if (!row) throw new NotFoundError('wallet');
    return toWallet(row, this.deps.accountNumbers);
  }

  /** Creates a wallet, last in the member's order; a FREE member within the type's limit. */
  async create(caller: WalletCaller, input: CreateWalletRequest): Promise<Wallet> {
    const fields = storedFields(input, this.deps.accountNumbers);
    assertLoanTerms({ ...emptyLoanTerms, ...fields, type: input.type });
    const { memberId } = caller;
    const now = this.deps.clock.now();
    const row = await mapWriteErrors(() =>
      this.deps.db.transaction(async (tx) => {
        await lockWalletSet(tx, memberId);
        if (caller.limited) await assertUnderWalletLimit(tx, memberId, input.type);
        const [created] = await tx
          .insert(account)
          .values({
            ...fields,
            memberId,
            name: input.name,
            type: input.type,
            sortOrder: nextSortOrder(memberId),
            createdAt: now,
            updatedAt: now,
          })
          .returning(walletColumns);
        if (created!.manualValuation) await recordValue(tx, memberId, created!, this.today());
        await recordLoanTerms(tx, memberId, created!, this.today());
        return created!;
      }),
    );
    return toWallet(row, this.deps.accountNumbers);
  }

  /** Changes the fields given; a FREE member changing the type stays within the new type's limit. */
  async update(caller: WalletCaller, id: number, input: UpdateWalletRequest): Promise<Wallet> {
    const fields = storedFields(input, this.deps.accountNumbers);
    const { memberId } = caller;
    const row = await mapWriteErrors(() =>
      this.deps.db.transaction(async (tx) => {
        // The set lock first, as creates and reorders take it, then the row: one lock order for all.
        const limitApplies = caller.limited && input.type !== undefined;
        if (limitApplies) await lockWalletSet(tx, memberId);
        const [current] = await tx.select(walletColumns).from(account).where(ofMember(memberId, id)).for('update');
        if (!current) throw new NotFoundError('wallet');
        if (limitApplies && input.type !== current.type) {
          await assertUnderWalletLimit(tx, memberId, input.type!, id);
        }
        assertLoanTerms({ ...current, ...fields });
        if (Object.keys(fields).length === 0) return current;
        const [updated] = await tx.update(account).set(fields).where(ofMember(memberId, id)).returning(walletColumns);
        const valueChanged = !current.manualValuation || (current.currentValue ?? 0) !== (updated!.currentValue ?? 0);
        if (updated!.manualValuation && valueChanged) await recordValue(tx, memberId, updated!, this.today());
        const loanChanged =
          current.type !== updated!.type || loanFields.some((field) => current[field] !== updated![field]);
        if (loanChanged) await recordLoanTerms(tx, memberId, updated!, this.today());
        return updated!;
      }),
    );
    return toWallet(row, this.deps.accountNumbers);
  }

  /** Deletes a wallet: its entries stay without a wallet (FK SET NULL), its value and loan history go (cascade). */
  async delete(memberId: number, id: number): Promise<void> {
    const deleted = await this.deps.db.delete(account).where(ofMember(memberId, id)).returning({ id: account.id });
    if (deleted.length === 0) throw new NotFoundError('wallet');
  }

  /** Sets the order: `ids` must be exactly all the member's wallets; sort orders become 0..n-1. */
  async reorder(memberId: number, ids: number[]): Promise<void> {
    await this.deps.db.transaction(async (tx) => {
      await lockWalletSet(tx, memberId);
      const rows = await tx.select({ id: account.id }).from(account).where(eq(account.memberId, memberId));
      const wanted = new Set(ids);
      if (rows.length !== ids.length || !rows.every((row) => wanted.has(row.id))) {
        throw new BadRequestError('INVALID_REORDER', 'The ids must list every one of your wallets exactly once.');
      }
      await tx.execute(sql`
        update ${account} set sort_order = o.ord - 1, updated_at = now()
          from unnest(${arrayLiteral(ids)}::int[]) with ordinality as o(id, ord)
         where ${account.memberId} = ${memberId} and ${account.id} = o.id`);
    });
  }

  /** Assets, liabilities and net worth today, from the wallets alone (one statement). */
  async netWorth(memberId: number): Promise<NetWorth> {
    const rows = await this.queries.valuing.execute({ memberId });
    return netWorthNow(rows.map(walletNowOf), this.today(), walletTypes);
  }

  /**
   * The net worth at the end of each of the last weeks or months (today for the current one), in two
   * statements whatever the number of points or the size of the ledger: the wallets with their entries
   * after the first point summed per period (and a loan's recorded terms), and the last manual value per
   * wallet and period. Older entries need no reading: the stored balance holds them all, so a point is the
   * balance less what came after it.
   */
  async netWorthTrend(memberId: number, query: NetWorthTrendQuery): Promise<NetWorthTrend> {
    const today = this.today();
    const periods = trailingPeriods(query.unit, query.unit === 'WEEK' ? query.weeks : query.months, today);
    // Period i takes the rows dated before period i+1 starts: width_bucket against the next periods' starts.
    const thresholds = arrayLiteral(periods.slice(1).map((period) => period.start));
    const [walletRows, valueRows] = await Promise.all([
      this.queries.trendWallets.execute({
        memberId,
        today,
        thresholds,
        firstEnd: periods[0]!.end,
        futureBucket: periods.length,
      }),
      this.queries.valueBuckets.execute({ memberId, today, thresholds }),
    ]);
    const entries: EntryBuckets = new Map(walletRows.map((row) => [row.id, slotsOf(row.window ?? [])]));
    const wallets = walletRows.map((row) => ({ ...this.valued(row), loanHistory: loanVersionsOf(row.loanHistory) }));
    return { unit: query.unit, points: trendPoints(wallets, periods, entries, valueSlots(valueRows)) };
  }

  /** Key rotation (the admin command line): every stored account number under the current key. */
  reencryptAccountNumbers(options: { batchSize?: number } = {}): Promise<ReencryptionReport> {
    return reencryptAccountNumbers(this.deps.db, this.deps.accountNumbers, options);
  }

  private today(): CalendarDate {
    return dateIn(this.deps.timeZone, this.deps.clock.now());
  }

  private valued(row: WalletRow): ValuedWallet {
    return { ...row, createdOn: dateIn(this.deps.timeZone, row.createdAt), loan: loanTermsOf(row) };
  }
}

/** What valuing a wallet today reads of it, as the driver hands it over (bigints as text). */
interface ValuingColumns {
  type: Wallet['type'];
  balance: string;
  manual_valuation: boolean;
  current_value: string | null;
  loan_amount: string | null;
  loan_rate: string | null;
  loan_method: LoanMethod | null;
  loan_months: number | null;
  loan_start: string | null;
}

const moneyOrNull = (text: string | null) => (text === null ? null : Number(text));

/** A wallet as its value today needs it, from its raw columns (decision P27: read no other column, map no row twice). */
function walletNowOf(row: ValuingColumns): WalletNow {
  const loanColumns = {
    type: row.type,
    loanAmount: moneyOrNull(row.loan_amount),
    loanRate: row.loan_rate,
    loanMethod: row.loan_method,
    loanMonths: row.loan_months,
    loanStart: row.loan_start,
  };
  return {
    type: row.type,
    balance: Number(row.balance),
    manualValuation: row.manual_valuation,
    currentValue: moneyOrNull(row.current_value),
    loan: loanTermsOf(loanColumns),
  };
}

const emptyLoanTerms = { loanAmount: null, loanRate: null, loanMethod: null, loanMonths: null, loanStart: null };

/** `[[bucket, sum], …]` → sums by bucket. */
function slotsOf(pairs: [number, number][]): number[] {
  const slots: number[] = [];
  for (const [bucket, sum] of pairs) slots[bucket] = sum;
  return slots;
}

/** Rows of `(accountId, bucket, value)` → per wallet, the value of each period that recorded one. */
function valueSlots(rows: { accountId: number; bucket: number; value: number }[]): ValueBuckets {
  const byWallet: ValueBuckets = new Map();
  for (const { accountId, bucket, value } of rows) {
    const slots = byWallet.get(accountId) ?? [];
    slots[bucket] = value;
    byWallet.set(accountId, slots);
  }
  return byWallet;
}

/** A `wallet_loan_history` row as the trend reads it: `[validFrom, amount, rate, method, months, start]`. */
type LoanVersionTuple = [CalendarDate, number, string | null, LoanMethod, number, CalendarDate];

function loanVersionsOf(tuples: LoanVersionTuple[] | null): LoanVersion[] {
  return (tuples ?? []).map(([validFrom, amount, annualRatePercent, method, months, start]) => ({
    validFrom,
    terms: { amount, annualRatePercent, method, months, start },
  }));
}

/** JSON aggregates may come back as text, depending on the driver's parsers. */
const parseJson = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

/** The hot reads, built once (V5). */
function prepareQueries(db: Database) {
  const memberId = sql.placeholder('memberId');
  const today = sql.placeholder('today');
  const bucketOf = (column: typeof accountEntry.entryDate | typeof walletValueHistory.day) =>
    sql<number>`width_bucket(${column}, ${sql.placeholder('thresholds')}::date[])`.mapWith(Number);

  const list = db
    .select(walletColumns)
    .from(account)
    .where(eq(account.memberId, memberId))
    .orderBy(asc(account.sortOrder), asc(account.id))
    .prepare('wallets_list');

  // The wallet's confirmed entries dated after the first point, summed per period; the bucket past the
  // last period holds those dated after today. One index range scan per wallet (member, account, date).
  // Written with explicit aliases: drizzle leaves columns unqualified in a one-table select.
  const window = sql<[number, number][] | null>`(
    select json_agg(json_build_array(w.bucket, w.delta)) from (
      select case when e.entry_date > ${today} then ${sql.placeholder('futureBucket')}::int
                  else width_bucket(e.entry_date, ${sql.placeholder('thresholds')}::date[]) end as bucket,
             sum(case when e.type = 'INCOME' then e.amount else -e.amount end) as delta
        from ${accountEntry} e
       where e.member_id = ${account}.member_id and e.account_id = ${account}.id
         and not e.pending and e.entry_date > ${sql.placeholder('firstEnd')}
       group by 1) w)`.mapWith((value) => parseJson<[number, number][] | null>(value));
  // A LOAN wallet's recorded terms, oldest first (the rate as text: an exact decimal). Named, so that the row
  // has no two columns called `json_agg` for a client reading it by name.
  const loanHistory = sql<LoanVersionTuple[] | null>`(
    select json_agg(json_build_array(h.valid_from, h.loan_amount, h.loan_rate::text, h.loan_method, h.loan_months,
                                     h.loan_start) order by h.valid_from)
      from ${walletLoanHistory} h
     where h.member_id = ${account}.member_id and h.account_id = ${account}.id and ${account}.type = 'LOAN')`
    .mapWith((value) => parseJson<LoanVersionTuple[] | null>(value))
    .as('loan_history');
  const trendWallets = db
    .select({ ...walletColumns, window, loanHistory })
    .from(account)
    .where(eq(account.memberId, memberId))
    .orderBy(asc(account.sortOrder), asc(account.id))
    .prepare('wallets_trend');

  const recorded = db
    .select({
      accountId: walletValueHistory.accountId,
      bucket: bucketOf(walletValueHistory.day).as('bucket'),
      day: walletValueHistory.day,
      value: walletValueHistory.value,
    })
    .from(walletValueHistory)
    .where(and(eq(walletValueHistory.memberId, memberId), lte(walletValueHistory.day, today)))
    .as('recorded');
  const valueBuckets = db
    .selectDistinctOn([recorded.accountId, recorded.bucket], {
      accountId: recorded.accountId,
      bucket: recorded.bucket,
      value: recorded.value,
    })
    .from(recorded)
    .orderBy(recorded.accountId, recorded.bucket, desc(recorded.day))
    .prepare('wallets_trend_values');

  const valuing = rawSelect<ValuingColumns>(
    db,
    db
      .select({
        type: account.type,
        balance: account.balance,
        manualValuation: account.manualValuation,
        currentValue: account.currentValue,
        loanAmount: account.loanAmount,
        loanRate: account.loanRate,
        loanMethod: account.loanMethod,
        loanMonths: account.loanMonths,
        loanStart: account.loanStart,
      })
      .from(account)
      .where(eq(account.memberId, memberId))
      .orderBy(asc(account.sortOrder), asc(account.id)),
  );

  return { list, trendWallets, valueBuckets, valuing };
}
