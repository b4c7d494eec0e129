import type { ImportOutcome } from '@nestegg/contract';
import { daysBetween } from '@nestegg/domain';
import type { StatementLine } from '@nestegg/statements';
import { CANCELLATION_WINDOW_DAYS, type ImportKey, normalizedDescription } from './import-keys.js';

/** A line with what the import knows of it before deciding: its key and its local amount. */
export interface PricedLine {
  line: StatementLine;
  key: ImportKey | null;
  /** Whole local units: the file's, or the foreign amount converted; null when neither could be had. */
  amount: number | null;
  /** Why the amount is missing (no rate for a foreign row), when it is. */
  unpriced: string | null;
}

/** An existing entry of the member a row may duplicate, match or cancel. */
export interface ExistingEntry {
  id: number;
  type: 'INCOME' | 'EXPENSE';
  amount: number;
  date: string;
  memo: string | null;
  accountId: number | null;
  importKey: ImportKey | null;
}

export interface OutcomeInputs {
  lines: readonly PricedLine[];
  walletId: number | null;
  /** Rows the member left out. */
  excluded: ReadonlySet<number>;
  /** The member's choices where a row could match: an entry, or null for a new entry. */
  choices: ReadonlyMap<number, number | null>;
  /** Keys imported before: the entry holding each, or null for a cancellation recorded by an import. */
  known: ReadonlyMap<ImportKey, number | null>;
  /** For a numbered cancellation: the entry its purchase was imported as, by row. */
  importedPurchases: ReadonlyMap<number, number>;
  /** The member's entries of the rows' dates (± the window) and amounts. */
  entries: readonly ExistingEntry[];
  matchWindowDays: number;
}

export interface RowDecision {
  index: number;
  outcome: ImportOutcome;
  entryId: number | null;
  cancelsRow: number | null;
  candidates: number[];
  reason: string | null;
}

const decision = (index: number, outcome: ImportOutcome, reason: string | null, entryId: number | null = null) => ({
  index,
  outcome,
  entryId,
  cancelsRow: null as number | null,
  candidates: [] as number[],
  reason,
});

/** How alike two descriptions are: 2 the same, 1 one holds the other (or one is empty), 0 different. */
export function likeness(a: string | null, b: string | null): 0 | 1 | 2 {
  const [x, y] = [normalizedDescription(a), normalizedDescription(b)];
  if (x === '' || y === '') return 1;
  if (x === y) return 2;
  return x.includes(y) || y.includes(x) ? 1 : 0;
}

const walletFits = (entry: ExistingEntry, walletId: number | null) =>
  entry.accountId === null || walletId === null || entry.accountId === walletId;

interface Candidate {
  entry: ExistingEntry;
  days: number;
  alike: number;
}

/**
 * The file's purchases and the member's entries grouped by amount (entries by type and amount), each group in
 * its list's order: a row looks only at its own amount's, not at every row and entry of a 50,000-row file.
 */
interface ByAmount {
  purchases: ReadonlyMap<number | null, readonly PricedLine[]>;
  entries: ReadonlyMap<string, readonly ExistingEntry[]>;
}

function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

const entryKey = (type: string | null, amount: number | null) => `${type}:${amount}`;

const better = (a: Candidate, b: Candidate) => a.days - b.days || b.alike - a.alike || a.entry.id - b.entry.id;
const tied = (a: Candidate, b: Candidate) => a.days === b.days && a.alike === b.alike;

/**
 * Every row's outcome (decision SI3): rows that are not transactions, left out or without an amount first; then
 * keys imported before (DUPLICATE); cancellations paired with their purchase in the file or among the entries
 * (CANCELLATION); then each remaining row matched to at most one unclaimed entry of the same type, amount, a
 * fitting wallet, a date within the window and an alike description (MATCHED) — the member's choices first,
 * then the rows in file order; a row with two equally good candidates is NEW and shows them. Pure.
 */
export function decideOutcomes(inputs: OutcomeInputs): RowDecision[] {
  const decided = new Map<number, RowDecision>();
  const open: PricedLine[] = [];
  for (const priced of inputs.lines) {
    const early = earlyOutcome(priced, inputs);
    if (early) decided.set(priced.line.index, early);
    else open.push(priced);
  }
  const claimed = new Set<number>();
  const byAmount: ByAmount = {
    purchases: groupBy(
      open.filter((priced) => !priced.line.cancellation),
      (priced) => priced.amount,
    ),
    entries: groupBy(inputs.entries, (entry) => entryKey(entry.type, entry.amount)),
  };
  for (const found of pairCancellations(open, inputs, claimed, byAmount)) decided.set(found.index, found);
  const rest = open.filter((priced) => !decided.has(priced.line.index));
  for (const found of matchRows(rest, inputs, claimed, byAmount)) decided.set(found.index, found);
  return inputs.lines.map((priced) => decided.get(priced.line.index)!);
}

function earlyOutcome(priced: PricedLine, inputs: OutcomeInputs): RowDecision | null {
  const { line } = priced;
  if (line.kind === 'SKIPPED') return decision(line.index, 'SKIPPED', line.reason);
  if (line.kind === 'INVALID') return decision(line.index, 'INVALID', line.reason);
  if (inputs.excluded.has(line.index)) return decision(line.index, 'EXCLUDED', 'left out by the member');
  if (priced.amount === null) return decision(line.index, 'INVALID', priced.unpriced ?? 'the row has no amount');
  if (priced.key !== null && inputs.known.has(priced.key)) {
    const entryId = inputs.known.get(priced.key) ?? null;
    const why = line.transactionId ? `number ${line.transactionId}` : 'the same wallet, date, amount and description';
    return decision(line.index, 'DUPLICATE', `imported before (${why})`, entryId);
  }
  return null;
}

/** A cancellation's purchase: a row of this file, else the imported purchase, else an alike entry. */
function pairCancellations(
  open: PricedLine[],
  inputs: OutcomeInputs,
  claimed: Set<number>,
  byAmount: ByAmount,
): RowDecision[] {
  const found: RowDecision[] = [];
  const pairedRows = new Set<number>();
  for (const cancellation of open.filter((priced) => priced.line.cancellation)) {
    const index = cancellation.line.index;
    const purchaseRow = purchaseInFile(cancellation, byAmount.purchases.get(cancellation.amount) ?? [], pairedRows);
    if (purchaseRow) {
      pairedRows.add(purchaseRow.line.index);
      found.push({
        ...decision(index, 'CANCELLATION', `cancels row ${purchaseRow.line.rowNumber} of this file`),
        cancelsRow: purchaseRow.line.index,
      });
      found.push(
        decision(
          purchaseRow.line.index,
          'CANCELLATION',
          `cancelled by row ${cancellation.line.rowNumber} of this file`,
        ),
      );
      continue;
    }
    const entryId =
      inputs.importedPurchases.get(index) ??
      purchaseAmongEntries(
        cancellation,
        byAmount.entries.get(entryKey('EXPENSE', cancellation.amount)) ?? [],
        inputs.walletId,
        claimed,
      );
    if (entryId !== null && entryId !== undefined && !claimed.has(entryId)) {
      claimed.add(entryId);
      found.push(decision(index, 'CANCELLATION', `cancels entry ${entryId}`, entryId));
    } else {
      found.push(decision(index, 'CANCELLATION', 'no purchase of this amount to cancel was found: nothing is removed'));
    }
  }
  return found;
}

/** The latest purchase of `sameAmount` (the open purchases of the cancellation's amount, in file order) it cancels. */
function purchaseInFile(
  cancellation: PricedLine,
  sameAmount: readonly PricedLine[],
  paired: Set<number>,
): PricedLine | null {
  const c = cancellation.line;
  const fits = (p: PricedLine) =>
    !p.line.cancellation &&
    !paired.has(p.line.index) &&
    p.amount === cancellation.amount &&
    p.line.date !== null &&
    c.date !== null &&
    p.line.date <= c.date &&
    daysBetween(p.line.date, c.date) <= CANCELLATION_WINDOW_DAYS &&
    (c.transactionId && p.line.transactionId
      ? c.transactionId === p.line.transactionId
      : normalizedDescription(p.line.description) === normalizedDescription(c.description));
  const purchases = sameAmount.filter(fits);
  return purchases.at(-1) ?? null;
}

/** The entry among `sameAmount` (the member's expenses of the cancellation's amount) it cancels. */
function purchaseAmongEntries(
  cancellation: PricedLine,
  sameAmount: readonly ExistingEntry[],
  walletId: number | null,
  claimed: Set<number>,
): number | null {
  const date = cancellation.line.date;
  if (!date) return null;
  const fits = sameAmount.filter(
    (entry) =>
      !claimed.has(entry.id) &&
      entry.type === 'EXPENSE' &&
      entry.amount === cancellation.amount &&
      entry.date <= date &&
      daysBetween(entry.date, date) <= CANCELLATION_WINDOW_DAYS &&
      walletFits(entry, walletId) &&
      likeness(entry.memo, cancellation.line.description) > 0,
  );
  fits.sort((a, b) => (a.date === b.date ? b.id - a.id : a.date < b.date ? 1 : -1));
  return fits[0]?.id ?? null;
}

function candidatesOf(
  priced: PricedLine,
  inputs: OutcomeInputs,
  claimed: Set<number>,
  byAmount: ByAmount,
): Candidate[] {
  const { line } = priced;
  if (!line.date) return [];
  const date = line.date;
  return (byAmount.entries.get(entryKey(line.type, priced.amount)) ?? [])
    .filter(
      (entry) =>
        entry.importKey === null &&
        !claimed.has(entry.id) &&
        entry.type === line.type &&
        entry.amount === priced.amount &&
        walletFits(entry, inputs.walletId),
    )
    .map((entry) => ({
      entry,
      days: Math.abs(daysBetween(entry.date, date)),
      alike: likeness(entry.memo, line.description),
    }))
    .filter((candidate) => candidate.days <= inputs.matchWindowDays && candidate.alike > 0)
    .sort(better);
}

/** The member's choices first, then the rows in file order, each claiming at most one entry. */
function matchRows(rows: PricedLine[], inputs: OutcomeInputs, claimed: Set<number>, byAmount: ByAmount): RowDecision[] {
  const chosenFirst = [...rows].sort(
    (a, b) =>
      Number(inputs.choices.has(b.line.index)) - Number(inputs.choices.has(a.line.index)) ||
      a.line.index - b.line.index,
  );
  return chosenFirst.map((priced) => matchRow(priced, inputs, claimed, byAmount));
}

function matchRow(priced: PricedLine, inputs: OutcomeInputs, claimed: Set<number>, byAmount: ByAmount): RowDecision {
  const index = priced.line.index;
  const candidates = candidatesOf(priced, inputs, claimed, byAmount);
  const choice = inputs.choices.get(index);
  if (choice === null) return { ...decision(index, 'NEW', 'a new entry, as chosen'), candidates: ids(candidates) };
  if (choice !== undefined) {
    const chosen = candidates.find((candidate) => candidate.entry.id === choice);
    if (chosen) return claim(index, chosen, claimed, 'as chosen');
  }
  const [best, next] = candidates;
  if (!best) return decision(index, 'NEW', null);
  if (next && tied(best, next)) {
    const alike = candidates.filter((candidate) => tied(candidate, best));
    return {
      ...decision(index, 'NEW', `could confirm entries ${ids(alike).join(', ')}: choose one, or keep it new`),
      candidates: ids(alike),
    };
  }
  return { ...claim(index, best, claimed, describe(best)), candidates: ids(candidates.slice(1)) };
}

const ids = (candidates: Candidate[]) => candidates.map((candidate) => candidate.entry.id);

function claim(index: number, candidate: Candidate, claimed: Set<number>, why: string): RowDecision {
  claimed.add(candidate.entry.id);
  return decision(index, 'MATCHED', `confirms entry ${candidate.entry.id} (${why})`, candidate.entry.id);
}

function describe(candidate: Candidate): string {
  const day = candidate.days === 0 ? 'same day' : `${candidate.days} day${candidate.days === 1 ? '' : 's'} apart`;
  const text = candidate.alike === 2 ? 'same description' : 'alike description';
  return `same amount, ${day}, ${text}`;
}
