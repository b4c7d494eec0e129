/**
 * The writes of a restore, inside its one transaction: lock the member's ledger, delete it, insert the
 * planned rows set by set (`json_to_recordset`, entries in batches), wallets, tags and categories resolved by
 * name in SQL. Balances and the delta-sync log follow from the tables' own triggers.
 */
import type { DbOrTx } from '@nestegg/db';
import { type SQL, sql } from 'drizzle-orm';
import { lockMemberLedger } from '../../../lib/locks.js';
import type { EntriesPlanned, HeadPlan, PlannedWallet } from './restore-plan.js';

/** Where a restore places budgets and the expected income, and the day of manual values and loan terms. */
export interface RestoreCalendar {
  today: string;
  year: number;
  month: number;
}

/** The stage a failure happened in, for the problem's `errors` path. */
export type RestoreStage =
  | 'accounts'
  | 'tags'
  | 'categories'
  | 'entries'
  | 'recurrings'
  | 'budgets'
  | 'onetimeBudgets'
  | 'expectedIncome'
  | 'quickEntries';

/**
 * Keeps every other write of the member out until the restore commits. The per-member advisory locks the
 * writers take come first, in an order no writer reverses (a FREE recurring creation takes its limit lock
 * before the shared category lock, so the category lock is last); then the rows others reference, in id
 * order: a concurrent entry naming a wallet or tag, a trade on a holding, the recurring job posting an
 * occurrence, each waits and then finds its row gone instead of surviving the restore half attached.
 */
export async function lockLedger(tx: DbOrTx, memberId: number): Promise<void> {
  await lockMemberLedger(tx, memberId);
  for (const table of ['account', 'tag', 'recurring', 'investment_holding']) {
    await tx.execute(sql`select id from ${sql.identifier(table)} where member_id = ${memberId} order by id for update`);
  }
}

/**
 * Deletes the member's ledger: entries first (their tags go with them), then what entries reference, so no
 * foreign key has anything to empty. Investments go too (spec rule 4: not restored).
 */
export async function deleteLedger(tx: DbOrTx, memberId: number): Promise<void> {
  const tables = [
    'account_entry',
    'recurring',
    'quick_entry',
    'budget',
    'budget_onetime',
    'budget_income',
    'category',
    'tag',
    'account',
    'investment_trade',
    'investment_holding',
  ];
  for (const table of tables) {
    await tx.execute(sql`delete from ${sql.identifier(table)} where member_id = ${memberId}`);
  }
}

/** Rows of a JSON array, in array order, typed by a column definition list. */
const rowsOf = (json: string, columns: string) =>
  sql`rows from (json_to_recordset(${json}::json) as (${sql.raw(columns)})) with ordinality as r`;

const WALLET_COLUMNS =
  'name text, type account_type, account_number text, card_company text, opening_balance bigint, sort_order int, ' +
  'loan_amount bigint, loan_rate numeric, loan_method loan_method, loan_months int, loan_start date, ' +
  'manual_valuation boolean, current_value bigint';

async function insertWallets(tx: DbOrTx, memberId: number, wallets: PlannedWallet[], today: string): Promise<void> {
  if (wallets.length === 0) return;
  await tx.execute(sql`
    insert into account (member_id, name, type, account_number, card_company, opening_balance, sort_order,
                         loan_amount, loan_rate, loan_method, loan_months, loan_start, manual_valuation, current_value)
    select ${memberId}, r.name, r.type, r.account_number, r.card_company, r.opening_balance, r.sort_order,
           r.loan_amount, r.loan_rate, r.loan_method, r.loan_months, r.loan_start, r.manual_valuation, r.current_value
      from ${rowsOf(JSON.stringify(wallets), WALLET_COLUMNS)}
     order by r.ordinality`);
  // A manual wallet's value is recorded for the day, as creating it does (the net-worth trend reads it).
  await tx.execute(sql`
    insert into wallet_value_history (member_id, account_id, day, value)
    select member_id, id, ${today}::date, coalesce(current_value, 0) from account
     where member_id = ${memberId} and manual_valuation`);
  // A loan's terms likewise, from the day (the trend values the past by the first terms recorded).
  await tx.execute(sql`
    insert into wallet_loan_history (member_id, account_id, valid_from, loan_amount, loan_rate, loan_method,
                                     loan_months, loan_start)
    select member_id, id, ${today}::date, loan_amount, loan_rate, loan_method, loan_months, loan_start from account
     where member_id = ${memberId} and type = 'LOAN' and loan_amount is not null and loan_method is not null
       and loan_months is not null and loan_start is not null`);
}

async function insertCategories(tx: DbOrTx, memberId: number, plan: HeadPlan): Promise<void> {
  await tx.execute(sql`
    insert into category (member_id, name, type, sort_order)
    select ${memberId}, r.name, r.type, r.sort_order
      from ${rowsOf(plan.topCategories, 'name text, type ledger_type, sort_order int')}
     order by r.ordinality`);
  await tx.execute(sql`
    insert into category (member_id, name, type, parent_id, sort_order)
    select ${memberId}, r.name, r.type, p.id, r.sort_order
      from ${rowsOf(plan.subCategories, 'name text, type ledger_type, parent text, sort_order int')}
      join category p on p.member_id = ${memberId} and p.type = r.type and p.name = r.parent and p.parent_id is null
     order by r.ordinality`);
}

const ENTRY_COLUMNS =
  'type ledger_type, amount bigint, entry_date date, memo text, category text, account text, currency char(3), ' +
  'original_amount numeric, exchange_rate numeric, installment_months int, pending boolean, notif_key text, ' +
  'import_key text, tags text[]';

/**
 * One batch of entries and their tags in one statement: ids are drawn from the entries' own identity
 * sequence first, so the tags can name them in the same statement.
 */
export function entryBatch(memberId: number, batch: string): SQL {
  return sql`
    with src as materialized (
      select r.*, nextval('account_entry_id_seq') as new_id
        from ${rowsOf(batch, ENTRY_COLUMNS)}
       order by r.ordinality
    ), inserted as (
      insert into account_entry (id, member_id, account_id, type, amount, entry_date, memo, category, currency,
                                 original_amount, exchange_rate, installment_months, pending, notif_key, import_key)
      overriding system value
      select s.new_id, ${memberId}, a.id, s.type, s.amount, s.entry_date, s.memo, s.category, s.currency,
             s.original_amount, s.exchange_rate, s.installment_months, s.pending, s.notif_key, s.import_key
        from src s left join account a on a.member_id = ${memberId} and a.name = s.account
       order by s.new_id
      returning 1
    )
    insert into entry_tag (member_id, entry_id, tag_id)
    select ${memberId}, s.new_id, t.id
      from src s cross join lateral unnest(s.tags) as n(name)
      join tag t on t.member_id = ${memberId} and t.name = n.name`;
}

const RECURRING_COLUMNS =
  'name text, type ledger_type, amount bigint, category text, account text, memo text, frequency recurring_frequency, ' +
  'day_of_month smallint, day_of_week smallint, month_of_year smallint, start_date date, end_date date, ' +
  'active boolean, last_run_on date';

const QUICK_ENTRY_COLUMNS =
  'name text, type ledger_type, amount bigint, category text, account text, memo text, sort_order int';

/** Every kind after the entries, in the spec's order; `stage` hears each step. */
export async function insertAfterEntries(
  tx: DbOrTx,
  memberId: number,
  plan: HeadPlan,
  calendar: RestoreCalendar,
  stage: (name: RestoreStage) => void,
): Promise<void> {
  stage('recurrings');
  await tx.execute(sql`
    insert into recurring (member_id, name, type, amount, category, account_id, memo, frequency, day_of_month,
                           day_of_week, month_of_year, start_date, end_date, active, last_run_on)
    select ${memberId}, r.name, r.type, r.amount, r.category, a.id, r.memo, r.frequency, r.day_of_month,
           r.day_of_week, r.month_of_year, r.start_date, r.end_date, r.active, r.last_run_on
      from ${rowsOf(plan.recurrings, RECURRING_COLUMNS)}
      left join account a on a.member_id = ${memberId} and a.name = r.account
     order by r.ordinality`);
  stage('budgets');
  await tx.execute(sql`
    insert into budget (member_id, category, year, month, amount)
    select ${memberId}, r.category, ${calendar.year}, ${calendar.month}, r.amount
      from ${rowsOf(plan.budgets, 'category text, amount bigint')}
     order by r.ordinality`);
  stage('onetimeBudgets');
  await tx.execute(sql`
    insert into budget_onetime (member_id, name, amount, start_date, end_date, category, memo)
    select ${memberId}, r.name, r.amount, r.start_date, r.end_date, r.category, r.memo
      from ${rowsOf(plan.onetimeBudgets, 'name text, amount bigint, start_date date, end_date date, category text, memo text')}
     order by r.ordinality`);
  stage('expectedIncome');
  if (plan.expectedIncome !== null) {
    await tx.execute(sql`
      insert into budget_income (member_id, year, month, amount)
      values (${memberId}, ${calendar.year}, ${calendar.month}, ${plan.expectedIncome})`);
  }
  stage('quickEntries');
  await tx.execute(sql`
    insert into quick_entry (member_id, name, type, amount, category, account_id, memo, sort_order)
    select ${memberId}, r.name, r.type, r.amount, r.category, a.id, r.memo, r.sort_order
      from ${rowsOf(plan.quickEntries, QUICK_ENTRY_COLUMNS)}
      left join account a on a.member_id = ${memberId} and a.name = r.account
     order by r.ordinality`);
}

/** Wallets, tags and categories (top level, then sub-categories): what the entries name. */
export async function insertBeforeEntries(
  tx: DbOrTx,
  memberId: number,
  plan: HeadPlan,
  calendar: RestoreCalendar,
  stage: (name: RestoreStage) => void,
): Promise<void> {
  stage('accounts');
  await insertWallets(tx, memberId, plan.wallets, calendar.today);
  stage('tags');
  await tx.execute(sql`
    insert into tag (member_id, name, sort_order)
    select ${memberId}, r.name, r.sort_order from ${rowsOf(plan.tags, 'name text, sort_order int')}
     order by r.ordinality`);
  stage('categories');
  await insertCategories(tx, memberId, plan);
}

/** Wallets backed up with a balance only: their opening balance, now that their entries are in (the trigger moves the balance). */
export async function setOpeningBalances(tx: DbOrTx, memberId: number, planned: EntriesPlanned): Promise<void> {
  if (planned.openingBalances.length === 0) return;
  await tx.execute(sql`
    update account a set opening_balance = r.opening_balance
      from json_to_recordset(${JSON.stringify(planned.openingBalances)}::json) as r(name text, opening_balance bigint)
     where a.member_id = ${memberId} and a.name = r.name`);
}
