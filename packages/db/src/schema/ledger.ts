import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  char,
  check,
  date,
  foreignKey,
  index,
  integer,
  numeric,
  pgEnum,
  pgTable,
  primaryKey,
  smallint,
  text,
  unique,
} from 'drizzle-orm/pg-core';
import { createdAt, ledgerType, updatedAt } from './_common';
import { member } from './members';

/*
 * Scale-out rule (decision L5): every member-owned table carries `member_id`, join tables included, and
 * its keys and indexes lead with it; no query joins two members' rows. The ledger can then be distributed
 * by member (e.g. Citus, co-located on `member_id`) without a rewrite. So a primary key is `(member_id, id)`
 * (`id` stays an identity column, unique by its sequence), and a reference to another ledger row is the
 * composite `(member_id, x_id)` → `(member_id, id)`, foreign keys included. `packages/db/test/migrations.test.ts`
 * checks the rule against the catalog.
 */

/** Money: whole local-currency units, `bigint` read as a JS number. */
const money = (name: string) => bigint(name, { mode: 'number' });

export const accountType = pgEnum('account_type', [
  'CASH',
  'BANK',
  'CARD',
  'CHECK_CARD',
  'SAVINGS',
  'INVESTMENT',
  'PENSION',
  'LOAN',
  'MINUS',
  'OTHER',
]);
export const loanMethod = pgEnum('loan_method', ['EQUAL_PAYMENT', 'EQUAL_PRINCIPAL', 'BULLET']);
export const recurringFrequency = pgEnum('recurring_frequency', ['MONTHLY', 'WEEKLY', 'YEARLY']);

export type AccountType = (typeof accountType.enumValues)[number];
export type LoanMethod = (typeof loanMethod.enumValues)[number];
export type RecurringFrequency = (typeof recurringFrequency.enumValues)[number];

/** A wallet. Names are unique per member: restore recreates wallets by name. */
export const account = pgTable(
  'account',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: accountType('type').notNull(),
    /**
     * `enc:v1:<key id>:<iv>:<ciphertext+tag>` (AES-256-GCM, base64url) when a key is configured, otherwise
     * the plain number (the spec's pass-through).
     */
    accountNumber: text('account_number'),
    cardCompany: text('card_company'),
    /** The balance the member entered; the base the confirmed entries are added to. */
    openingBalance: money('opening_balance').notNull().default(0),
    /**
     * Maintained by the database (trigger): opening balance plus the confirmed entries on the wallet.
     * The app never writes it.
     */
    balance: money('balance').notNull().default(0),
    sortOrder: integer('sort_order').notNull().default(0),
    /** Executed loan amount (LOAN); the credit limit (MINUS, a credit line: decision L33). */
    loanAmount: money('loan_amount'),
    /** Annual interest in percent, e.g. `4.2500`. */
    loanRate: numeric('loan_rate', { precision: 7, scale: 4 }),
    loanMethod: loanMethod('loan_method'),
    loanMonths: integer('loan_months'),
    loanStart: date('loan_start', { mode: 'string' }),
    /** Manual-valuation wallet (e.g. a pension): `currentValue` is entered directly. */
    manualValuation: boolean('manual_valuation').notNull().default(false),
    currentValue: money('current_value'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'account_pk', columns: [t.memberId, t.id] }),
    unique('account_member_name_uq').on(t.memberId, t.name),
    index('account_member_sort_idx').on(t.memberId, t.sortOrder),
    check('account_loan_months_positive', sql`${t.loanMonths} is null or ${t.loanMonths} > 0`),
    // A JS number reads it exactly (decision FI2; added NOT VALID, validated when existing rows allow it).
    check('account_balance_safe', sql`${t.balance} between -9007199254740991 and 9007199254740991`),
  ],
);

/**
 * A member's category; two levels (the app enforces the depth). `parent_id` is NO ACTION, so a
 * parent with children cannot be deleted on its own, while deleting the member (cascade) removes
 * both levels in one statement. The composite FK keeps a child under a parent of the same member.
 */
export const category = pgTable(
  'category',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: ledgerType('type').notNull(),
    parentId: integer('parent_id'),
    sortOrder: integer('sort_order').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'category_pk', columns: [t.memberId, t.id] }),
    foreignKey({
      name: 'category_parent_fk',
      columns: [t.memberId, t.parentId],
      foreignColumns: [t.memberId, t.id],
    }),
    // Entries, budgets, recurrings and quick entries refer to a category by name: one name per type.
    unique('category_member_type_name_uq').on(t.memberId, t.type, t.name),
    index('category_member_parent_idx').on(t.memberId, t.parentId),
    check('category_not_own_parent', sql`${t.parentId} is null or ${t.parentId} <> ${t.id}`),
  ],
);

/** Default categories shared by all members (admin-managed), copied by the category import. */
export const defaultCategory = pgTable(
  'default_category',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull(),
    type: ledgerType('type').notNull(),
    parentId: integer('parent_id'),
    sortOrder: integer('sort_order').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    foreignKey({ name: 'default_category_parent_fk', columns: [t.parentId], foreignColumns: [t.id] }),
    unique('default_category_type_name_uq').on(t.type, t.name),
    index('default_category_parent_idx').on(t.parentId),
  ],
);

/** Ledger entry. `category` is the category *name* (the sub-category name with two levels), as the spec says. */
export const accountEntry = pgTable(
  'account_entry',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    /** Wallet; a composite key with `member_id` (custom migration) keeps it the member's own. */
    accountId: integer('account_id'),
    type: ledgerType('type').notNull(),
    /** Local-currency amount (the converted value for a foreign-currency entry). */
    amount: money('amount').notNull(),
    entryDate: date('entry_date', { mode: 'string' }).notNull(),
    memo: text('memo'),
    category: text('category'),
    /** ISO 4217 code of a foreign-currency entry; null for local currency. */
    currency: char('currency', { length: 3 }),
    /** Amount in the foreign currency; up to 4 fractional digits (cents, and 3-decimal currencies). */
    originalAmount: numeric('original_amount', { precision: 18, scale: 4 }),
    /** Local units per foreign unit; 10 fractional digits keep small ratios exact enough. */
    exchangeRate: numeric('exchange_rate', { precision: 20, scale: 10 }),
    /** 2..24 for a card instalment purchase; null for lump sum. */
    installmentMonths: integer('installment_months'),
    pending: boolean('pending').notNull().default(false),
    /** De-duplication key of the card notification that created the entry. */
    notifKey: text('notif_key'),
    /** De-duplication key of the statement row that created or confirmed the entry (decision SI2). */
    importKey: text('import_key'),
    /** The recurring transaction and occurrence this entry was posted for (once: unique). */
    recurringId: integer('recurring_id'),
    occurrenceDate: date('occurrence_date', { mode: 'string' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'account_entry_pk', columns: [t.memberId, t.id] }),
    unique('account_entry_member_notif_key_uq').on(t.memberId, t.notifKey),
    unique('account_entry_member_import_key_uq').on(t.memberId, t.importKey),
    unique('account_entry_member_occurrence_uq').on(t.memberId, t.recurringId, t.occurrenceDate),
    index('account_entry_member_date_idx').on(t.memberId, t.entryDate, t.id),
    index('account_entry_member_pending_idx').on(t.memberId).where(sql`${t.pending}`),
    // Statistics and budgets (decision LP11): the confirmed entries of a member's date range with every column
    // they sum or group by, so they are read from the index alone (an index-only scan), however the member's
    // rows lie among the service's in the heap.
    index('account_entry_member_confirmed_date_idx')
      .on(t.memberId, t.entryDate, t.type, t.amount, t.category, t.memo)
      .where(sql`not ${t.pending}`),
    index('account_entry_member_category_date_idx').on(t.memberId, t.category, t.entryDate, t.id),
    index('account_entry_member_account_date_idx').on(t.memberId, t.accountId, t.entryDate, t.id),
    // Memo search (`q`, `ilike '%…%'`, decision L37): each key is the member and one 3-character piece of the
    // lower-cased memo (`nestegg_memo_grams`, migration 'memo_grams'), so a search reads only the member's
    // posting lists for the term, whatever the service and the member hold. btree_gin lets member_id lead (L5).
    index('account_entry_member_memo_grams_idx').using('gin', t.memberId, sql`nestegg_memo_grams(member_id, memo)`),
    check('account_entry_amount_positive', sql`${t.amount} > 0`),
    check(
      'account_entry_installment_months_range',
      sql`${t.installmentMonths} is null or (${t.installmentMonths} between 2 and 24 and ${t.type} = 'EXPENSE')`,
    ),
    check(
      'account_entry_foreign_all_or_none',
      sql`(${t.currency} is null) = (${t.originalAmount} is null) and (${t.currency} is null) = (${t.exchangeRate} is null)`,
    ),
    // A deleted recurring empties recurring_id and leaves the date (what was posted stays visible).
    check('account_entry_occurrence_dated', sql`${t.recurringId} is null or ${t.occurrenceDate} is not null`),
  ],
);

/** A member's ledger tag (premium). */
export const tag = pgTable(
  'tag',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    sortOrder: integer('sort_order').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'tag_pk', columns: [t.memberId, t.id] }),
    unique('tag_member_name_uq').on(t.memberId, t.name),
  ],
);

/** Tags of an entry. Carries `member_id` (scale-out rule: every member-owned table leads with it). */
export const entryTag = pgTable(
  'entry_tag',
  {
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    entryId: integer('entry_id').notNull(),
    tagId: integer('tag_id').notNull(),
  },
  (t) => [
    primaryKey({ name: 'entry_tag_pk', columns: [t.memberId, t.entryId, t.tagId] }),
    index('entry_tag_member_tag_idx').on(t.memberId, t.tagId, t.entryId),
    foreignKey({
      name: 'entry_tag_entry_fk',
      columns: [t.memberId, t.entryId],
      foreignColumns: [accountEntry.memberId, accountEntry.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'entry_tag_tag_fk',
      columns: [t.memberId, t.tagId],
      foreignColumns: [tag.memberId, tag.id],
    }).onDelete('cascade'),
  ],
);

/** Monthly budget per category *name*; unique per (member, category, year, month). */
export const budget = pgTable(
  'budget',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    category: text('category').notNull(),
    year: smallint('year').notNull(),
    month: smallint('month').notNull(),
    amount: money('amount').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'budget_pk', columns: [t.memberId, t.id] }),
    unique('budget_member_category_year_month_uq').on(t.memberId, t.category, t.year, t.month),
    index('budget_member_year_month_idx').on(t.memberId, t.year, t.month),
    check('budget_month_range', sql`${t.month} between 1 and 12`),
  ],
);

/** Expected monthly income: one value per (member, year, month). */
export const budgetIncome = pgTable(
  'budget_income',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    year: smallint('year').notNull(),
    month: smallint('month').notNull(),
    amount: money('amount').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'budget_income_pk', columns: [t.memberId, t.id] }),
    unique('budget_income_member_year_month_uq').on(t.memberId, t.year, t.month),
    check('budget_income_month_range', sql`${t.month} between 1 and 12`),
  ],
);

/** One-time budget over a date range (inclusive). */
export const budgetOnetime = pgTable(
  'budget_onetime',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    amount: money('amount').notNull(),
    startDate: date('start_date', { mode: 'string' }).notNull(),
    endDate: date('end_date', { mode: 'string' }).notNull(),
    category: text('category'),
    memo: text('memo'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'budget_onetime_pk', columns: [t.memberId, t.id] }),
    index('budget_onetime_member_start_idx').on(t.memberId, t.startDate),
    check('budget_onetime_date_order', sql`${t.endDate} >= ${t.startDate}`),
  ],
);

/**
 * Recurring transaction. MONTHLY uses `day_of_month` (1..31, clamped to the month's last day by
 * the app), WEEKLY `day_of_week` (ISO 1 = Monday .. 7 = Sunday), YEARLY `month_of_year` + `day_of_month`.
 */
export const recurring = pgTable(
  'recurring',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: ledgerType('type').notNull(),
    amount: money('amount').notNull(),
    category: text('category'),
    /** Wallet; composite key with `member_id` (custom migration). */
    accountId: integer('account_id'),
    memo: text('memo'),
    frequency: recurringFrequency('frequency').notNull().default('MONTHLY'),
    dayOfMonth: smallint('day_of_month'),
    dayOfWeek: smallint('day_of_week'),
    monthOfYear: smallint('month_of_year'),
    startDate: date('start_date', { mode: 'string' }).notNull(),
    endDate: date('end_date', { mode: 'string' }),
    active: boolean('active').notNull().default(true),
    /** Last occurrence the job has posted through (it resumes from the day after). */
    lastRunOn: date('last_run_on', { mode: 'string' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'recurring_pk', columns: [t.memberId, t.id] }),
    // The posting job walks the active ones in key order, member by member.
    index('recurring_member_active_idx').on(t.memberId, t.id).where(sql`${t.active}`),
    index('recurring_member_account_idx').on(t.memberId, t.accountId),
    check('recurring_day_of_month_range', sql`${t.dayOfMonth} is null or ${t.dayOfMonth} between 1 and 31`),
    check('recurring_day_of_week_range', sql`${t.dayOfWeek} is null or ${t.dayOfWeek} between 1 and 7`),
    check('recurring_month_of_year_range', sql`${t.monthOfYear} is null or ${t.monthOfYear} between 1 and 12`),
    check('recurring_date_order', sql`${t.endDate} is null or ${t.endDate} >= ${t.startDate}`),
  ],
);

/** Quick-entry template; every field but the name is optional. */
export const quickEntry = pgTable(
  'quick_entry',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: ledgerType('type').notNull().default('EXPENSE'),
    amount: money('amount'),
    category: text('category'),
    /** Wallet; composite key with `member_id` (custom migration). */
    accountId: integer('account_id'),
    memo: text('memo'),
    sortOrder: integer('sort_order').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'quick_entry_pk', columns: [t.memberId, t.id] }),
    index('quick_entry_member_sort_idx').on(t.memberId, t.sortOrder),
    index('quick_entry_member_account_idx').on(t.memberId, t.accountId),
  ],
);

/**
 * Values entered by hand for a manual-valuation wallet (a pension, say), one row per wallet and day (the
 * last value of that day): the net-worth trend reads the past from it.
 */
export const walletValueHistory = pgTable(
  'wallet_value_history',
  {
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    accountId: integer('account_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    value: money('value').notNull(),
  },
  (t) => [
    primaryKey({ name: 'wallet_value_history_pk', columns: [t.memberId, t.accountId, t.day] }),
    foreignKey({
      name: 'wallet_value_history_account_fk',
      columns: [t.memberId, t.accountId],
      foreignColumns: [account.memberId, account.id],
    }).onDelete('cascade'),
  ],
);

/**
 * The terms of a LOAN wallet as they stood from a day on, one row per wallet and day (the day's last terms):
 * the net-worth trend values each past day by the terms of then, so editing the terms does not rewrite the
 * past. Written when a loan wallet with complete terms is created or restored, and when its terms change.
 */
export const walletLoanHistory = pgTable(
  'wallet_loan_history',
  {
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    accountId: integer('account_id').notNull(),
    validFrom: date('valid_from', { mode: 'string' }).notNull(),
    loanAmount: money('loan_amount').notNull(),
    /** Annual interest in percent; null = 0 %, as on the wallet. */
    loanRate: numeric('loan_rate', { precision: 7, scale: 4 }),
    loanMethod: loanMethod('loan_method').notNull(),
    loanMonths: integer('loan_months').notNull(),
    loanStart: date('loan_start', { mode: 'string' }).notNull(),
  },
  (t) => [
    primaryKey({ name: 'wallet_loan_history_pk', columns: [t.memberId, t.accountId, t.validFrom] }),
    foreignKey({
      name: 'wallet_loan_history_account_fk',
      columns: [t.memberId, t.accountId],
      foreignColumns: [account.memberId, account.id],
    }).onDelete('cascade'),
    check('wallet_loan_history_loan_months_positive', sql`${t.loanMonths} > 0`),
  ],
);

/**
 * What the member's confirmed entries teach about merchants (card-notification learning): how many confirmed
 * entries of a type have a memo whose key is `merchant` (lower case, no whitespace: `nestegg_merchant_key`)
 * and that category. Maintained by triggers on `account_entry` (custom migration), so every write path
 * (entries, confirm, the recurring job, restore, renames) keeps it true; rows at zero uses are removed.
 */
export const merchantCategory = pgTable(
  'merchant_category',
  {
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    type: ledgerType('type').notNull(),
    merchant: text('merchant').notNull(),
    category: text('category').notNull(),
    uses: integer('uses').notNull(),
  },
  (t) => [primaryKey({ name: 'merchant_category_pk', columns: [t.memberId, t.type, t.merchant, t.category] })],
);

/**
 * Card cancellations already applied, by their content key: the same cancellation arriving again (by SMS
 * and by push) cancels nothing more. `entry_id` is the approval it removed (null when none was found).
 */
export const cardCancellation = pgTable(
  'card_cancellation',
  {
    memberId: integer('member_id')
      .notNull()
      .references(() => member.id, { onDelete: 'cascade' }),
    notifKey: text('notif_key').notNull(),
    entryId: integer('entry_id'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ name: 'card_cancellation_pk', columns: [t.memberId, t.notifKey] })],
);

export type Account = typeof account.$inferSelect;
export type NewAccount = typeof account.$inferInsert;
export type Category = typeof category.$inferSelect;
export type NewCategory = typeof category.$inferInsert;
export type DefaultCategory = typeof defaultCategory.$inferSelect;
export type NewDefaultCategory = typeof defaultCategory.$inferInsert;
export type AccountEntry = typeof accountEntry.$inferSelect;
export type NewAccountEntry = typeof accountEntry.$inferInsert;
export type Tag = typeof tag.$inferSelect;
export type NewTag = typeof tag.$inferInsert;
export type EntryTag = typeof entryTag.$inferSelect;
export type NewEntryTag = typeof entryTag.$inferInsert;
export type Budget = typeof budget.$inferSelect;
export type NewBudget = typeof budget.$inferInsert;
export type BudgetIncome = typeof budgetIncome.$inferSelect;
export type NewBudgetIncome = typeof budgetIncome.$inferInsert;
export type BudgetOnetime = typeof budgetOnetime.$inferSelect;
export type NewBudgetOnetime = typeof budgetOnetime.$inferInsert;
export type Recurring = typeof recurring.$inferSelect;
export type NewRecurring = typeof recurring.$inferInsert;
export type WalletValueHistory = typeof walletValueHistory.$inferSelect;
export type WalletLoanHistory = typeof walletLoanHistory.$inferSelect;
export type MerchantCategory = typeof merchantCategory.$inferSelect;
export type CardCancellation = typeof cardCancellation.$inferSelect;
export type QuickEntry = typeof quickEntry.$inferSelect;
export type NewQuickEntry = typeof quickEntry.$inferInsert;

/**
 * Per member, the sum of every amount the api ever adds up: entry amounts, wallets' opening balances, manual
 * values and loan amounts (absolute), budget, expected-income and one-time budget amounts. Kept by statement
 * triggers (migration 'ledger_volume'), which refuse a write that would take it past Number.MAX_SAFE_INTEGER
 * (check_violation `ledger_volume_safe`), so any balance, total, spent or statistic stays a safe integer
 * (decision FI2). `numeric`: rows older than the bound are summed without overflow.
 */
export const ledgerVolume = pgTable('ledger_volume', {
  memberId: integer('member_id')
    .primaryKey()
    .references(() => member.id, { onDelete: 'cascade' }),
  volume: numeric('volume').notNull().default('0'),
});
