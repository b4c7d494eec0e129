/**
 * From a parsed backup to the rows restore writes (pure: runs in the restore worker, off the main thread).
 * The backup is self-contained, so every reference is checked against the backup itself: wallets, tags and
 * parent categories must be in it, names must not repeat where the database keeps them unique. Rows come out
 * as JSON texts that PostgreSQL reads with `json_to_recordset`. The head (everything but the entries) is
 * planned first; entries follow in batches, so the database can write one batch while the next is checked.
 */
import { type Backup, type BackupEntrySchema, backupHasData, type RestoreResult } from '@nestegg/contract';
import { addDays, type CalendarDate, completeSchedule } from '@nestegg/domain';
import type { z } from 'zod';
import { loanTermIssues } from '../wallets/index.js';

/** Entries per INSERT statement: large enough to amortise a round trip, small enough to overlap with checking. */
export const ENTRY_BATCH_SIZE = 5_000;
/** A broken backup is described by its first problems, not by all of them. */
export const MAX_ISSUES = 50;

export interface PlanIssue {
  path: string;
  message: string;
}

export type BackupEntry = z.infer<typeof BackupEntrySchema>;
/** A backup whose entries are planned separately. */
export type BackupHead = Omit<Backup, 'entries'>;

/** A wallet as restore writes it; the account number is still plain (the main thread encrypts it). */
export interface PlannedWallet {
  name: string;
  type: string;
  account_number: string | null;
  card_company: string | null;
  opening_balance: number;
  sort_order: number;
  loan_amount: number | null;
  loan_rate: string | null;
  loan_method: string | null;
  loan_months: number | null;
  loan_start: string | null;
  manual_valuation: boolean;
  current_value: number | null;
}

/** Everything restore writes but the entries; every text is a JSON array of rows named like the columns. */
export interface HeadPlan {
  counts: RestoreResult;
  wallets: PlannedWallet[];
  tags: string;
  topCategories: string;
  subCategories: string;
  recurrings: string;
  budgets: string;
  onetimeBudgets: string;
  expectedIncome: number | null;
  quickEntries: string;
}

/** What the entries decide once all are read: the opening balance of wallets backed up with a balance only. */
export interface EntriesPlanned {
  openingBalances: { name: string; opening_balance: number }[];
}

export type Refusal = { ok: false; code: 'EMPTY_BACKUP' | 'INVALID_BACKUP'; issues: PlanIssue[] };

class Issues {
  readonly list: PlanIssue[] = [];

  add(path: string, message: string): void {
    if (this.list.length < MAX_ISSUES) this.list.push({ path: `body.${path}`, message });
  }
}

/** An empty memo is no memo (as the entry and quick-entry routes store it). */
const textOrNull = (value: string | null | undefined) => value || null;

/** Names that must be unique: each repeat is an issue at its own place. */
function checkUnique(names: readonly string[], path: (index: number) => string, issues: Issues): Set<string> {
  const seen = new Set<string>();
  names.forEach((name, index) => {
    if (seen.has(name)) issues.add(path(index), 'appears more than once in the backup');
    seen.add(name);
  });
  return seen;
}

function checkWallet(wallets: Set<string>, name: string | null | undefined, path: string, issues: Issues): void {
  if (name != null && !wallets.has(name)) issues.add(path, 'no wallet of this name in the backup');
}

/** The wallets' rule (L21, L33): loan terms only on LOAN and MINUS wallets, each type's terms complete. */
function checkLoanTerms(account: Backup['accounts'][number], index: number, issues: Issues): void {
  for (const { field, message } of loanTermIssues(account)) issues.add(`accounts.${index}.${field}`, message);
}

function plannedWallets(backup: BackupHead, issues: Issues): PlannedWallet[] {
  return backup.accounts.map((account, index) => {
    checkLoanTerms(account, index, issues);
    return {
      name: account.name,
      type: account.type,
      account_number: textOrNull(account.accountNumber),
      card_company: textOrNull(account.cardCompany),
      // Without an opening balance, the entries decide it (EntryPlanner.finish): 0 until then.
      opening_balance: account.openingBalance ?? 0,
      sort_order: account.sortOrder ?? index,
      loan_amount: account.loanAmount ?? null,
      loan_rate: account.loanRate ?? null,
      loan_method: account.loanMethod ?? null,
      loan_months: account.loanMonths ?? null,
      loan_start: account.loanStart ?? null,
      manual_valuation: account.manualValuation ?? false,
      current_value: account.currentValue ?? null,
    };
  });
}

/** Top-level categories and sub-categories (each under a top-level category of its type in the backup). */
function plannedCategories(backup: BackupHead, issues: Issues) {
  const key = (type: string, name: string) => `${type}\u0000${name}`;
  checkUnique(
    backup.categories.map((c) => key(c.type, c.name)),
    (index) => `categories.${index}.name`,
    issues,
  );
  const topLevel = new Set(backup.categories.filter((c) => c.parent == null).map((c) => key(c.type, c.name)));
  const known = new Set(backup.categories.map((c) => key(c.type, c.name)));
  const positions = new Map<string, number>();
  const top: object[] = [];
  const sub: object[] = [];
  backup.categories.forEach((category, index) => {
    const parent = category.parent ?? null;
    const group = key(category.type, parent ?? '');
    const position = positions.get(group) ?? 0;
    positions.set(group, position + 1);
    const row = { name: category.name, type: category.type, sort_order: category.sortOrder ?? position };
    if (parent === null) {
      top.push(row);
      return;
    }
    if (!topLevel.has(key(category.type, parent))) {
      const why = known.has(key(category.type, parent))
        ? 'the parent is itself a sub-category (two levels only)'
        : `no top-level ${category.type} category of this name in the backup`;
      issues.add(`categories.${index}.parent`, why);
    }
    sub.push({ ...row, parent });
  });
  return { top, sub };
}

function recurringRows(backup: BackupHead, wallets: Set<string>, today: CalendarDate, issues: Issues): object[] {
  const yesterday = addDays(today, -1);
  return backup.recurrings.map((recurring, index) => {
    checkWallet(wallets, recurring.account, `recurrings.${index}.account`, issues);
    const schedule = completeSchedule(recurring.frequency, recurring.startDate, recurring);
    return {
      name: recurring.name,
      type: recurring.type,
      amount: recurring.amount,
      category: recurring.category ?? null,
      account: recurring.account ?? null,
      memo: textOrNull(recurring.memo),
      frequency: recurring.frequency,
      day_of_month: schedule.dayOfMonth,
      day_of_week: schedule.dayOfWeek,
      month_of_year: schedule.monthOfYear,
      start_date: recurring.startDate,
      end_date: recurring.endDate ?? null,
      active: recurring.active ?? true,
      // Absent (a backup from elsewhere): what came before today is in the backup's entries already.
      last_run_on: recurring.lastRunOn === undefined ? yesterday : recurring.lastRunOn,
    };
  });
}

function quickEntryRows(backup: BackupHead, wallets: Set<string>, issues: Issues): object[] {
  return backup.quickEntries.map((template, index) => {
    checkWallet(wallets, template.account, `quickEntries.${index}.account`, issues);
    return {
      name: template.name,
      type: template.type,
      amount: template.amount ?? null,
      category: template.category ?? null,
      account: template.account ?? null,
      memo: textOrNull(template.memo),
      sort_order: template.sortOrder ?? index,
    };
  });
}

function budgetRows(backup: BackupHead, issues: Issues) {
  checkUnique(
    backup.budgets.map((b) => b.category),
    (index) => `budgets.${index}.category`,
    issues,
  );
  const budgets = backup.budgets.map((b) => ({ category: b.category, amount: b.amount }));
  const onetime = backup.onetimeBudgets.map((b) => ({
    name: b.name,
    amount: b.amount,
    start_date: b.startDate,
    end_date: b.endDate,
    category: b.category ?? null,
    memo: textOrNull(b.memo),
  }));
  return { budgets, onetime };
}

function countsOf(backup: BackupHead, entries: number): RestoreResult {
  return {
    accounts: backup.accounts.length,
    tags: backup.tags.length,
    categories: backup.categories.length,
    entries,
    recurrings: backup.recurrings.length,
    budgets: backup.budgets.length,
    onetimeBudgets: backup.onetimeBudgets.length,
    expectedIncome: backup.expectedIncome != null,
    quickEntries: backup.quickEntries.length,
  };
}

/**
 * The head of a backup that passed the contract's schema, or what contradicts itself in it, with the
 * planner of its `entryCount` entries. `today` is the ledger's day (recurrings without `lastRunOn` are settled
 * up to yesterday).
 */
export function planHead(
  backup: BackupHead,
  entryCount: number,
  today: CalendarDate,
): { ok: true; head: HeadPlan; entries: EntryPlanner } | Refusal {
  if (entryCount === 0 && !backupHasData({ ...backup, entries: [] })) {
    return { ok: false, code: 'EMPTY_BACKUP', issues: [{ path: 'body', message: 'the backup holds no data' }] };
  }
  const issues = new Issues();
  const walletNames = checkUnique(
    backup.accounts.map((a) => a.name),
    (index) => `accounts.${index}.name`,
    issues,
  );
  const tagNames = checkUnique(
    backup.tags.map((t) => t.name),
    (index) => `tags.${index}.name`,
    issues,
  );
  const wallets = plannedWallets(backup, issues);
  const categories = plannedCategories(backup, issues);
  const recurrings = recurringRows(backup, walletNames, today, issues);
  const quickEntries = quickEntryRows(backup, walletNames, issues);
  const { budgets, onetime } = budgetRows(backup, issues);
  if (issues.list.length > 0) return { ok: false, code: 'INVALID_BACKUP', issues: issues.list };
  const balanceOnly = backup.accounts.filter((a) => a.openingBalance === undefined);
  return {
    ok: true,
    head: {
      counts: countsOf(backup, entryCount),
      wallets,
      tags: JSON.stringify(backup.tags.map((t, index) => ({ name: t.name, sort_order: t.sortOrder ?? index }))),
      topCategories: JSON.stringify(categories.top),
      subCategories: JSON.stringify(categories.sub),
      recurrings: JSON.stringify(recurrings),
      budgets: JSON.stringify(budgets),
      onetimeBudgets: JSON.stringify(onetime),
      expectedIncome: backup.expectedIncome ?? null,
      quickEntries: JSON.stringify(quickEntries),
    },
    entries: new EntryPlanner(walletNames, tagNames, new Map(balanceOnly.map((a) => [a.name, BigInt(a.balance)]))),
  };
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Plans the entries batch by batch: checks what each names (a wallet and tags of the backup, a notification
 * key used once), adds up what the confirmed ones do to each wallet, and writes each batch as one JSON text.
 */
export class EntryPlanner {
  private readonly notifKeys = new Set<string>();
  private readonly importKeys = new Set<string>();
  private readonly effects = new Map<string, bigint>();

  constructor(
    private readonly wallets: Set<string>,
    private readonly tags: Set<string>,
    /** Wallets backed up with a balance but no opening balance: the balance they must end at. */
    private readonly targetBalances: Map<string, bigint>,
  ) {}

  /** One batch (`offset`: the index of its first entry in the backup) → its JSON rows, or the issues. */
  add(entries: readonly BackupEntry[], offset: number): { ok: true; batch: string } | Refusal {
    const issues = new Issues();
    const rows = entries.map((entry, at) => this.row(entry, offset + at, issues));
    if (issues.list.length > 0) return { ok: false, code: 'INVALID_BACKUP', issues: issues.list };
    return { ok: true, batch: JSON.stringify(rows) };
  }

  /** After the last batch: the opening balance that makes each balance-only wallet end at its balance. */
  finish(accountIndex: (name: string) => number): { ok: true; planned: EntriesPlanned } | Refusal {
    const issues = new Issues();
    const openingBalances = [...this.targetBalances].map(([name, target]) => {
      const opening = target - (this.effects.get(name) ?? 0n);
      if (opening > SAFE || opening < -SAFE) {
        issues.add(`accounts.${accountIndex(name)}.balance`, 'out of range with its entries');
      }
      return { name, opening_balance: Number(opening) };
    });
    if (issues.list.length > 0) return { ok: false, code: 'INVALID_BACKUP', issues: issues.list };
    return { ok: true, planned: { openingBalances } };
  }

  private row(entry: BackupEntry, index: number, issues: Issues): object {
    checkWallet(this.wallets, entry.account, `entries.${index}.account`, issues);
    entry.tags?.forEach((name, at) => {
      if (!this.tags.has(name)) issues.add(`entries.${index}.tags.${at}`, 'no tag of this name in the backup');
    });
    if (entry.notifKey != null) {
      if (this.notifKeys.has(entry.notifKey)) {
        issues.add(`entries.${index}.notifKey`, 'appears more than once in the backup');
      }
      this.notifKeys.add(entry.notifKey);
    }
    if (entry.importKey != null) {
      if (this.importKeys.has(entry.importKey)) {
        issues.add(`entries.${index}.importKey`, 'appears more than once in the backup');
      }
      this.importKeys.add(entry.importKey);
    }
    if (!entry.pending && entry.account != null && this.targetBalances.has(entry.account)) {
      const delta = BigInt(entry.type === 'INCOME' ? entry.amount : -entry.amount);
      this.effects.set(entry.account, (this.effects.get(entry.account) ?? 0n) + delta);
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
      import_key: entry.importKey ?? null,
      tags: entry.tags ?? [],
    };
  }
}
