import { type Backup, BackupSchema } from '@nestegg/contract';
import type { FastifyReply } from 'fastify';
import type postgres from 'postgres';
import { completeSchedule } from '../../../packages/domain/src/index.js';
import type { BaselineDeps, BaselineHandler } from '../rows/types.js';
import { API_TIME_ZONE, addDays, dateIn } from './domain.js';
import { memberOf } from './ledger.js';
import { memberProfileById, toMemberResponse } from './members.js';
import { resolveSession } from './session.js';

/*
 * POST /api/account/restore done the plain way: Fastify's JSON parser and the contract's schema on the main
 * thread, the whole backup planned in one go, then the statements the api sends (apps/api/src/modules/ledger/backup/
 * ledger-restore.ts), their text copied as drizzle builds it (the harness compares them) in one transaction,
 * entries in batches of the api's ENTRY_BATCH_SIZE. What the api does differently is where and when: its worker
 * thread parses, checks and plans the body while the main thread stays free, and hands the entries over batch
 * by batch, so the database writes one batch while the next is checked. Account numbers pass through as
 * they are: the bench api runs without ACCOUNT_NUMBER_KEYS.
 */

type Tx = postgres.TransactionSql;

/** apps/api/src/modules/ledger/backup/restore-plan.ts `ENTRY_BATCH_SIZE`. */
const ENTRY_BATCH_SIZE = 5_000;

class Refused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly errors: { path: string; message: string }[] = [],
  ) {
    super(code);
  }
}

const textOrNull = (value: string | null | undefined) => value || null;

interface Plan {
  counts: {
    accounts: number;
    tags: number;
    categories: number;
    entries: number;
    recurrings: number;
    budgets: number;
    onetimeBudgets: number;
    expectedIncome: boolean;
    quickEntries: number;
  };
  wallets: string;
  tags: string;
  topCategories: string;
  subCategories: string;
  entryBatches: string[];
  openingBalances: { name: string; opening_balance: number }[];
  recurrings: string;
  budgets: string;
  onetimeBudgets: string;
  expectedIncome: number | null;
  quickEntries: string;
}

/** The backup's rows, as JSON texts named like the columns; what contradicts itself is refused. */
function planOf(backup: Backup, today: string): Plan {
  const errors: { path: string; message: string }[] = [];
  const problem = (path: string, message: string) => errors.push({ path: `body.${path}`, message });
  const unique = (names: string[], path: (index: number) => string) => {
    const seen = new Set<string>();
    names.forEach((name, index) => {
      if (seen.has(name)) problem(path(index), 'appears more than once in the backup');
      seen.add(name);
    });
    return seen;
  };
  const wallets = unique(
    backup.accounts.map((a) => a.name),
    (index) => `accounts.${index}.name`,
  );
  const tags = unique(
    backup.tags.map((t) => t.name),
    (index) => `tags.${index}.name`,
  );
  const walletKnown = (name: string | null | undefined, path: string) => {
    if (name != null && !wallets.has(name)) problem(path, 'no wallet of this name in the backup');
  };

  const walletRows = backup.accounts.map((a, index) => ({
    name: a.name,
    type: a.type,
    account_number: textOrNull(a.accountNumber),
    card_company: textOrNull(a.cardCompany),
    opening_balance: a.openingBalance ?? 0,
    sort_order: a.sortOrder ?? index,
    loan_amount: a.loanAmount ?? null,
    loan_rate: a.loanRate ?? null,
    loan_method: a.loanMethod ?? null,
    loan_months: a.loanMonths ?? null,
    loan_start: a.loanStart ?? null,
    manual_valuation: a.manualValuation ?? false,
    current_value: a.currentValue ?? null,
  }));

  const key = (type: string, name: string) => `${type}\u0000${name}`;
  unique(
    backup.categories.map((c) => key(c.type, c.name)),
    (index) => `categories.${index}.name`,
  );
  const topLevel = new Set(backup.categories.filter((c) => c.parent == null).map((c) => key(c.type, c.name)));
  const positions = new Map<string, number>();
  const top: object[] = [];
  const sub: object[] = [];
  backup.categories.forEach((c, index) => {
    const group = key(c.type, c.parent ?? '');
    const position = positions.get(group) ?? 0;
    positions.set(group, position + 1);
    const row = { name: c.name, type: c.type, sort_order: c.sortOrder ?? position };
    if (c.parent == null) top.push(row);
    else {
      if (!topLevel.has(key(c.type, c.parent))) problem(`categories.${index}.parent`, 'no top-level category');
      sub.push({ ...row, parent: c.parent });
    }
  });

  // Wallets backed up with a balance only: the opening balance that makes them end at it.
  const targets = new Map(backup.accounts.filter((a) => a.openingBalance === undefined).map((a) => [a.name, a]));
  const effects = new Map<string, bigint>();
  const notifKeys = new Set<string>();
  const entryRows = backup.entries.map((entry, index) => {
    walletKnown(entry.account, `entries.${index}.account`);
    entry.tags?.forEach((name, at) => {
      if (!tags.has(name)) problem(`entries.${index}.tags.${at}`, 'no tag of this name in the backup');
    });
    if (entry.notifKey != null) {
      if (notifKeys.has(entry.notifKey)) problem(`entries.${index}.notifKey`, 'appears more than once in the backup');
      notifKeys.add(entry.notifKey);
    }
    if (!entry.pending && entry.account != null && targets.has(entry.account)) {
      const delta = BigInt(entry.type === 'INCOME' ? entry.amount : -entry.amount);
      effects.set(entry.account, (effects.get(entry.account) ?? 0n) + delta);
    }
    return {
      type: entry.type,
      amount: entry.amount,
      entry_date: entry.date,
      memo: textOrNull(entry.memo),
      category: entry.category ?? null,
      account: entry.account ?? null,
      currency: entry.currency ?? null,
      original_amount: entry.originalAmount ?? null,
      exchange_rate: entry.exchangeRate ?? null,
      installment_months: entry.installmentMonths ?? null,
      pending: entry.pending ?? false,
      notif_key: entry.notifKey ?? null,
      tags: entry.tags ?? [],
    };
  });
  const entryBatches: string[] = [];
  for (let offset = 0; offset < entryRows.length; offset += ENTRY_BATCH_SIZE) {
    entryBatches.push(JSON.stringify(entryRows.slice(offset, offset + ENTRY_BATCH_SIZE)));
  }
  const openingBalances = [...targets.values()].map((a) => ({
    name: a.name,
    opening_balance: Number(BigInt(a.balance) - (effects.get(a.name) ?? 0n)),
  }));

  const yesterday = addDays(today, -1);
  const recurrings = backup.recurrings.map((r, index) => {
    walletKnown(r.account, `recurrings.${index}.account`);
    const schedule = completeSchedule(r.frequency, r.startDate, r);
    return {
      name: r.name,
      type: r.type,
      amount: r.amount,
      category: r.category ?? null,
      account: r.account ?? null,
      memo: textOrNull(r.memo),
      frequency: r.frequency,
      day_of_month: schedule.dayOfMonth,
      day_of_week: schedule.dayOfWeek,
      month_of_year: schedule.monthOfYear,
      start_date: r.startDate,
      end_date: r.endDate ?? null,
      active: r.active ?? true,
      last_run_on: r.lastRunOn === undefined ? yesterday : r.lastRunOn,
    };
  });
  unique(
    backup.budgets.map((b) => b.category),
    (index) => `budgets.${index}.category`,
  );
  const quickEntries = backup.quickEntries.map((q, index) => {
    walletKnown(q.account, `quickEntries.${index}.account`);
    return {
      name: q.name,
      type: q.type,
      amount: q.amount ?? null,
      category: q.category ?? null,
      account: q.account ?? null,
      memo: textOrNull(q.memo),
      sort_order: q.sortOrder ?? index,
    };
  });
  if (errors.length > 0) throw new Refused(400, 'INVALID_BACKUP', errors.slice(0, 50));

  return {
    counts: {
      accounts: backup.accounts.length,
      tags: backup.tags.length,
      categories: backup.categories.length,
      entries: backup.entries.length,
      recurrings: backup.recurrings.length,
      budgets: backup.budgets.length,
      onetimeBudgets: backup.onetimeBudgets.length,
      expectedIncome: backup.expectedIncome != null,
      quickEntries: backup.quickEntries.length,
    },
    wallets: JSON.stringify(walletRows),
    tags: JSON.stringify(backup.tags.map((t, index) => ({ name: t.name, sort_order: t.sortOrder ?? index }))),
    topCategories: JSON.stringify(top),
    subCategories: JSON.stringify(sub),
    entryBatches,
    openingBalances,
    recurrings: JSON.stringify(recurrings),
    budgets: JSON.stringify(backup.budgets.map((b) => ({ category: b.category, amount: b.amount }))),
    onetimeBudgets: JSON.stringify(
      backup.onetimeBudgets.map((b) => ({
        name: b.name,
        amount: b.amount,
        start_date: b.startDate,
        end_date: b.endDate,
        category: b.category ?? null,
        memo: textOrNull(b.memo),
      })),
    ),
    expectedIncome: backup.expectedIncome ?? null,
    quickEntries: JSON.stringify(quickEntries),
  };
}

// ---------------------------------------------------------------------------------------------------
// The statements (ledger-restore.ts, lockWalletSet, lockMemberCategories), as drizzle writes them
// ---------------------------------------------------------------------------------------------------

const WALLET_SET_LOCK = 0x57414c4c;
const TEXT_OID = 25;
const LEDGER_TABLES = [
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

/**
 * A JSON text sent as it is: postgres.js would JSON.stringify a string bound to a `json` parameter (drizzle
 * turns that serializer off on the api's client), so it goes as `text`, which the statement casts.
 */
const jsonText = (tx: Tx, json: string) => tx.typed(json, TEXT_OID);

/** Rows of a JSON array, in array order, typed by a column definition list. */
const rowsOf = (tx: Tx, json: string, columns: string) =>
  tx`rows from (json_to_recordset(${jsonText(tx, json)}::json) as (${tx.unsafe(columns)})) with ordinality as r`;

const WALLET_COLUMNS =
  'name text, type account_type, account_number text, card_company text, opening_balance bigint, sort_order int, ' +
  'loan_amount bigint, loan_rate numeric, loan_method loan_method, loan_months int, loan_start date, ' +
  'manual_valuation boolean, current_value bigint';
const ENTRY_COLUMNS =
  'type ledger_type, amount bigint, entry_date date, memo text, category text, account text, currency char(3), ' +
  'original_amount numeric, exchange_rate numeric, installment_months int, pending boolean, notif_key text, tags text[]';
const RECURRING_COLUMNS =
  'name text, type ledger_type, amount bigint, category text, account text, memo text, frequency recurring_frequency, ' +
  'day_of_month smallint, day_of_week smallint, month_of_year smallint, start_date date, end_date date, ' +
  'active boolean, last_run_on date';
const QUICK_ENTRY_COLUMNS =
  'name text, type ledger_type, amount bigint, category text, account text, memo text, sort_order int';

async function lockLedger(tx: Tx, memberId: number): Promise<void> {
  await tx`select pg_advisory_xact_lock(${0x52_45_43}::int, ${memberId}::int)`;
  await tx`select pg_advisory_xact_lock(${WALLET_SET_LOCK}, ${memberId})`;
  await tx`select pg_advisory_xact_lock(hashtext('nestegg.tag'), ${memberId}::int)`;
  await tx`select pg_advisory_xact_lock(hashtext('nestegg.category'), ${memberId}::int)`;
  for (const table of ['account', 'tag', 'recurring', 'investment_holding']) {
    await tx`select id from ${tx(table)} where member_id = ${memberId} order by id for update`;
  }
}

async function deleteLedger(tx: Tx, memberId: number): Promise<void> {
  for (const table of LEDGER_TABLES) await tx`delete from ${tx(table)} where member_id = ${memberId}`;
}

async function insertBeforeEntries(tx: Tx, memberId: number, plan: Plan, today: string): Promise<void> {
  if (plan.counts.accounts > 0) {
    await tx`
    insert into account (member_id, name, type, account_number, card_company, opening_balance, sort_order,
                         loan_amount, loan_rate, loan_method, loan_months, loan_start, manual_valuation, current_value)
    select ${memberId}, r.name, r.type, r.account_number, r.card_company, r.opening_balance, r.sort_order,
           r.loan_amount, r.loan_rate, r.loan_method, r.loan_months, r.loan_start, r.manual_valuation, r.current_value
      from ${rowsOf(tx, plan.wallets, WALLET_COLUMNS)}
     order by r.ordinality`;
    await tx`
    insert into wallet_value_history (member_id, account_id, day, value)
    select member_id, id, ${today}::date, coalesce(current_value, 0) from account
     where member_id = ${memberId} and manual_valuation`;
    await tx`
    insert into wallet_loan_history (member_id, account_id, valid_from, loan_amount, loan_rate, loan_method,
                                     loan_months, loan_start)
    select member_id, id, ${today}::date, loan_amount, loan_rate, loan_method, loan_months, loan_start from account
     where member_id = ${memberId} and type = 'LOAN' and loan_amount is not null and loan_method is not null
       and loan_months is not null and loan_start is not null`;
  }
  await tx`
    insert into tag (member_id, name, sort_order)
    select ${memberId}, r.name, r.sort_order from ${rowsOf(tx, plan.tags, 'name text, sort_order int')}
     order by r.ordinality`;
  await tx`
    insert into category (member_id, name, type, sort_order)
    select ${memberId}, r.name, r.type, r.sort_order
      from ${rowsOf(tx, plan.topCategories, 'name text, type ledger_type, sort_order int')}
     order by r.ordinality`;
  await tx`
    insert into category (member_id, name, type, parent_id, sort_order)
    select ${memberId}, r.name, r.type, p.id, r.sort_order
      from ${rowsOf(tx, plan.subCategories, 'name text, type ledger_type, parent text, sort_order int')}
      join category p on p.member_id = ${memberId} and p.type = r.type and p.name = r.parent and p.parent_id is null
     order by r.ordinality`;
}

const insertEntryBatch = (tx: Tx, memberId: number, batch: string) => tx`
    with src as materialized (
      select r.*, nextval('account_entry_id_seq') as new_id
        from ${rowsOf(tx, batch, ENTRY_COLUMNS)}
       order by r.ordinality
    ), inserted as (
      insert into account_entry (id, member_id, account_id, type, amount, entry_date, memo, category, currency,
                                 original_amount, exchange_rate, installment_months, pending, notif_key)
      overriding system value
      select s.new_id, ${memberId}, a.id, s.type, s.amount, s.entry_date, s.memo, s.category, s.currency,
             s.original_amount, s.exchange_rate, s.installment_months, s.pending, s.notif_key
        from src s left join account a on a.member_id = ${memberId} and a.name = s.account
       order by s.new_id
      returning 1
    )
    insert into entry_tag (member_id, entry_id, tag_id)
    select ${memberId}, s.new_id, t.id
      from src s cross join lateral unnest(s.tags) as n(name)
      join tag t on t.member_id = ${memberId} and t.name = n.name`;

async function setOpeningBalances(tx: Tx, memberId: number, plan: Plan): Promise<void> {
  if (plan.openingBalances.length === 0) return;
  await tx`
    update account a set opening_balance = r.opening_balance
      from json_to_recordset(${jsonText(tx, JSON.stringify(plan.openingBalances))}::json) as r(name text, opening_balance bigint)
     where a.member_id = ${memberId} and a.name = r.name`;
}

async function insertAfterEntries(
  tx: Tx,
  memberId: number,
  plan: Plan,
  calendar: { year: number; month: number },
): Promise<void> {
  await tx`
    insert into recurring (member_id, name, type, amount, category, account_id, memo, frequency, day_of_month,
                           day_of_week, month_of_year, start_date, end_date, active, last_run_on)
    select ${memberId}, r.name, r.type, r.amount, r.category, a.id, r.memo, r.frequency, r.day_of_month,
           r.day_of_week, r.month_of_year, r.start_date, r.end_date, r.active, r.last_run_on
      from ${rowsOf(tx, plan.recurrings, RECURRING_COLUMNS)}
      left join account a on a.member_id = ${memberId} and a.name = r.account
     order by r.ordinality`;
  await tx`
    insert into budget (member_id, category, year, month, amount)
    select ${memberId}, r.category, ${calendar.year}, ${calendar.month}, r.amount
      from ${rowsOf(tx, plan.budgets, 'category text, amount bigint')}
     order by r.ordinality`;
  await tx`
    insert into budget_onetime (member_id, name, amount, start_date, end_date, category, memo)
    select ${memberId}, r.name, r.amount, r.start_date, r.end_date, r.category, r.memo
      from ${rowsOf(tx, plan.onetimeBudgets, 'name text, amount bigint, start_date date, end_date date, category text, memo text')}
     order by r.ordinality`;
  if (plan.expectedIncome !== null) {
    await tx`
      insert into budget_income (member_id, year, month, amount)
      values (${memberId}, ${calendar.year}, ${calendar.month}, ${plan.expectedIncome})`;
  }
  await tx`
    insert into quick_entry (member_id, name, type, amount, category, account_id, memo, sort_order)
    select ${memberId}, r.name, r.type, r.amount, r.category, a.id, r.memo, r.sort_order
      from ${rowsOf(tx, plan.quickEntries, QUICK_ENTRY_COLUMNS)}
      left join account a on a.member_id = ${memberId} and a.name = r.account
     order by r.ordinality`;
}

const problemOf = (reply: FastifyReply, refused: Refused) =>
  reply.code(refused.status).send({ code: refused.code, ...(refused.errors.length ? { errors: refused.errors } : {}) });

/** POST /api/account/restore: the whole backup checked and planned, then written in one transaction. */
export function restoreBaseline(deps: BaselineDeps): BaselineHandler {
  return async (request, reply) => {
    const memberId = await memberOf(deps, request, 'premium');
    if (typeof memberId !== 'number') return reply.code(memberId.status).send({ code: memberId.code });
    const today = dateIn(API_TIME_ZONE, new Date());
    const [year, month] = today.split('-').map(Number) as [number, number];
    const parsed = BackupSchema.safeParse(request.body);
    if (!parsed.success) {
      const empty = parsed.error.issues.some((issue) => issue.message === 'the backup holds no data');
      return reply.code(400).send({ code: empty ? 'EMPTY_BACKUP' : 'VALIDATION_FAILED' });
    }
    let plan: Plan;
    try {
      plan = planOf(parsed.data, today);
    } catch (error) {
      if (error instanceof Refused) return problemOf(reply, error);
      throw error;
    }
    try {
      await deps.sql.begin(async (tx) => {
        await lockLedger(tx, memberId);
        await deleteLedger(tx, memberId);
        await insertBeforeEntries(tx, memberId, plan, today);
        for (const batch of plan.entryBatches) await insertEntryBatch(tx, memberId, batch);
        await setOpeningBalances(tx, memberId, plan);
        await insertAfterEntries(tx, memberId, plan, { year, month });
      });
    } catch (error) {
      // A record the database refuses (a CHECK, a unique key) is the backup's fault.
      if ((error as { code?: string }).code?.startsWith('23'))
        return problemOf(reply, new Refused(400, 'INVALID_BACKUP'));
      throw error;
    }
    return plan.counts;
  };
}

// ---------------------------------------------------------------------------------------------------
// The neighbours: what other callers ask while restores run
// ---------------------------------------------------------------------------------------------------

/** GET /healthz (apps/api/src/plugins/health.ts). */
export const healthBaseline = (): BaselineHandler => async () => ({ status: 'ok' });

/** GET /api/auth/profile, as bench/src/rows/auth.ts's baseline. */
export function profileBaseline(deps: BaselineDeps): BaselineHandler {
  return async (request, reply) => {
    const session = await resolveSession(deps, request);
    if (!session) return reply.code(401).send({ code: 'UNAUTHENTICATED' });
    const [row] = await memberProfileById(deps, session.memberId);
    return row ? toMemberResponse(row) : reply.code(401).send({ code: 'UNAUTHENTICATED' });
  };
}
