import { createHash } from 'node:crypto';
import {
  type AdjustImportRequest,
  type ColumnMapping,
  type DateOrder,
  type Import,
  type ImportCounts,
  type ImportOutcome,
  type ImportProfile,
  type ImportUndoResult,
  MEMO_MAX,
} from '@nestegg/contract';
import type { Database, DbOrTx, MemberPlan, StatementImport } from '@nestegg/db';
import { addDays, type Clock, dateIn } from '@nestegg/domain';
import type { StatementLine } from '@nestegg/statements';
import { type SQL, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { DailyQuota } from '../../../lib/daily-quota.js';
import { BadRequestError, ConflictError, NotFoundError, ValidationFailedError } from '../../../lib/errors.js';
import type { GiveWay } from '../../../lib/give-way.js';
import { lockMemberImports, shareMemberCategories } from '../../../lib/locks.js';
import type { Upload } from '../../../plugins/multipart.js';
import type { ExchangeRatesService } from '../exchange-rates/index.js';
import {
  convertedAmount,
  INSTALMENT_WALLET_TYPE,
  impliedRate,
  learnedCategory,
  storedRate,
  withConstraintErrors,
} from '../kernel/index.js';
import { importView, rowView } from './import.view.js';
import { CANCELLATION_WINDOW_DAYS, type ImportKey, importKeys, purchaseKeysOf } from './import-keys.js';
import * as repository from './imports.repository.js';
import { decideOutcomes, type PricedLine, type RowDecision } from './outcomes.js';
import type { StatementRead, StatementReader } from './statement-reader.js';

export interface ImportRules {
  /** ± days a row may be from the entry it matches (`IMPORT_MATCH_WINDOW_DAYS`). */
  matchWindowDays: number;
  /** How long a committed import can be undone (`IMPORT_UNDO_HOURS`). */
  undoHours: number;
  /** Uploads a member may make a day, by plan (`IMPORT_DAILY_UPLOADS_FREE`, `…_PREMIUM`). */
  uploadsPerDay: Record<MemberPlan, number>;
}

export interface StatementImportsDeps {
  db: Database;
  clock: Clock;
  logger: FastifyBaseLogger;
  reader: StatementReader;
  quota: DailyQuota;
  exchangeRates: Pick<ExchangeRatesService, 'rateFor'>;
  rules: ImportRules;
  /** `APP_TIMEZONE`: today's date gives a year to dates a file writes without one. */
  timeZone: string;
  /** Runs each batch of an import's row and entry statements, pausing after it while others are served (P35). */
  giveWay: GiveWay;
}

/** What the member chose for an import (stored with it). */
export interface ImportSettings {
  mapping: ColumnMapping;
  dateOrder: DateOrder;
  /** The currency of amounts the file names none for (`KRW` unless the member chose another). */
  currency?: string;
  candidates: DateOrder[];
  accountId: number | null;
  excluded: number[];
  choices: Array<[number, number | null]>;
  profile: { id: number; name: string } | null;
}

/** How the file was read (stored with the import). */
type Reading = StatementRead['reading'];

interface Caller {
  memberId: number;
  plan: MemberPlan;
  isAdmin: boolean;
}

const EMPTY_COUNTS: ImportCounts = {
  NEW: 0,
  DUPLICATE: 0,
  MATCHED: 0,
  CANCELLATION: 0,
  INVALID: 0,
  SKIPPED: 0,
  EXCLUDED: 0,
};

/** Format and header cells: what files of one institution's export share (a saved profile is found by it). */
export const shapeKeyOf = (reading: Reading) =>
  createHash('sha256')
    .update(JSON.stringify([reading.format, reading.header]))
    .digest('base64url');

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const committedConflict = () =>
  new ConflictError('IMPORT_COMMITTED', 'This import is committed or undone: it can no longer be changed.');

/**
 * Statement import (issue 38, decisions SI1–SI8): upload and preview, adjust, commit once, undo within the window,
 * saved mappings. Files are read on a worker thread; every statement is scoped by the member.
 */
export class StatementImportsService {
  constructor(private readonly deps: StatementImportsDeps) {}

  // ---------------------------------------------------------------------------------------------------------
  // Preview
  // ---------------------------------------------------------------------------------------------------------

  /** Reads an uploaded file into a preview: one of the member's daily uploads, given back if it cannot be read. */
  async upload(caller: Caller, upload: Upload): Promise<Import> {
    const perDay = caller.isAdmin ? this.deps.rules.uploadsPerDay.PREMIUM : this.deps.rules.uploadsPerDay[caller.plan];
    const slot = await this.deps.quota.reserve(caller.memberId, perDay);
    try {
      return await this.preview(caller.memberId, upload);
    } catch (error) {
      await slot.release();
      throw error;
    }
  }

  private async preview(memberId: number, upload: Upload): Promise<Import> {
    const read = await this.read(upload.bytes, upload.fileName);
    const profile = await repository.profileForShape(this.deps.db, memberId, shapeKeyOf(read.reading));
    const saved = profile ? (profile.settings as Partial<ImportSettings>) : null;
    const fits = saved?.mapping && mappingIssues(saved.mapping, read.reading.header).length === 0;
    const settled =
      saved && fits
        ? await this.read(upload.bytes, upload.fileName, {
            mapping: saved.mapping!,
            dateOrder: saved.dateOrder ?? read.dateOrder,
          })
        : read;
    const settings: ImportSettings = {
      mapping: settled.mapping,
      dateOrder: settled.dateOrder,
      candidates: read.proposal.candidates,
      accountId: fits ? await this.walletOrNull(memberId, saved?.accountId ?? null) : null,
      excluded: [],
      choices: [],
      profile: profile && fits ? { id: profile.id, name: profile.name } : null,
    };
    const rows = await this.decide(this.deps.db, memberId, 0, settled.lines, settings);
    const created = await this.deps.db.transaction(async (tx) => {
      const row = await repository.insertImport(tx, {
        memberId,
        fileName: upload.fileName,
        fileHash: sha256(upload.bytes),
        fileBytes: upload.bytes,
        fileSize: upload.bytes.length,
        reading: settled.reading,
        settings,
        counts: countsOf(rows),
        rowCount: rows.length,
      });
      await repository.replaceRows(tx, memberId, row.id, rows, this.deps.giveWay);
      return row;
    });
    return this.view(created);
  }

  /** The file read on the worker, with `settings`' mapping and date order or the proposal's. */
  private read(
    bytes: Buffer,
    fileName: string,
    settings?: { mapping: ColumnMapping; dateOrder: DateOrder; currency?: string | undefined },
  ): Promise<StatementRead> {
    const referenceDate = dateIn(this.deps.timeZone, this.deps.clock.now());
    return this.deps.reader.read({
      bytes,
      fileName,
      referenceDate,
      ...(settings ? { mapping: settings.mapping, dateOrder: settings.dateOrder } : {}),
      ...(settings?.currency ? { currency: settings.currency } : {}),
    });
  }

  /** A wallet the member still has, else null (a saved profile may name a deleted one). */
  private async walletOrNull(memberId: number, walletId: number | null): Promise<number | null> {
    if (walletId === null) return null;
    return (await repository.walletTypeOf(this.deps.db, memberId, walletId)) === null ? null : walletId;
  }

  async get(memberId: number, id: number): Promise<Import> {
    return this.view(await this.existing(this.deps.db, memberId, id));
  }

  async list(memberId: number, size: number, cursor: string | undefined) {
    const after = cursor ? decodeListCursor(cursor) : null;
    const rows = await repository.importsPage(this.deps.db, memberId, size + 1, after);
    const items = rows.slice(0, size).map((row) => this.view(row));
    const last = rows.length > size ? rows[size - 1] : undefined;
    return { items, nextCursor: last ? encodeListCursor(last) : null };
  }

  async rows(
    memberId: number,
    id: number,
    query: { outcome?: ImportOutcome | undefined; cursor?: string | undefined; size: number },
  ) {
    await this.existing(this.deps.db, memberId, id);
    const afterIndex = query.cursor === undefined ? -1 : decodeRowCursor(query.cursor);
    const rows = await repository.rowsAfter(this.deps.db, memberId, id, {
      outcome: query.outcome,
      afterIndex,
      size: query.size + 1,
    });
    const items = rows.slice(0, query.size).map(rowView);
    const nextCursor = rows.length > query.size ? String(items.at(-1)!.index) : null;
    return { items, nextCursor };
  }

  // ---------------------------------------------------------------------------------------------------------
  // Adjust
  // ---------------------------------------------------------------------------------------------------------

  /** Applies the member's changes and recomputes every row (reading the file again when the mapping changed). */
  async adjust(memberId: number, id: number, request: AdjustImportRequest): Promise<Import> {
    const current = await this.existing(this.deps.db, memberId, id);
    if (current.status !== 'PREVIEW') throw committedConflict();
    const reading = current.reading as Reading;
    const before = current.settings as ImportSettings;
    if (request.mapping) assertMapping(request.mapping, reading.header);
    if (request.accountId) await this.assertWallet(memberId, request.accountId);
    const settings = adjustedSettings(before, request);
    const rereads =
      request.mapping !== undefined ||
      (request.dateOrder !== undefined && request.dateOrder !== before.dateOrder) ||
      (request.currency !== undefined && request.currency !== (before.currency ?? 'KRW'));
    const lines = rereads
      ? (await this.read(current.fileBytes!, current.fileName, settings)).lines
      : (await repository.rowsOf(this.deps.db, memberId, id, this.deps.giveWay)).map(
          (row) => row.line as StatementLine,
        );
    const rows = await this.decide(this.deps.db, memberId, id, lines, settings);
    const updated = await this.deps.db.transaction(async (tx) => {
      const locked = await this.existing(tx, memberId, id, true);
      if (locked.status !== 'PREVIEW') throw committedConflict();
      if (request.saveProfile) {
        settings.profile = await repository.saveProfile(tx, {
          memberId,
          name: request.saveProfile.name,
          shapeKey: shapeKeyOf(reading),
          settings: {
            mapping: settings.mapping,
            dateOrder: settings.dateOrder,
            accountId: settings.accountId,
            format: reading.format,
            header: reading.header,
          },
        });
      }
      await repository.replaceRows(tx, memberId, id, rows, this.deps.giveWay);
      return repository.updateImport(tx, memberId, id, { settings, counts: countsOf(rows), rowCount: rows.length });
    });
    return this.view(updated);
  }

  private async assertWallet(memberId: number, walletId: number): Promise<string> {
    const type = await repository.walletTypeOf(this.deps.db, memberId, walletId);
    if (type === null) throw new NotFoundError('wallet');
    return type;
  }

  async discard(memberId: number, id: number): Promise<void> {
    await this.deps.db.transaction(async (tx) => {
      const current = await this.existing(tx, memberId, id, true);
      if (current.status !== 'PREVIEW') throw committedConflict();
      await repository.deleteImport(tx, memberId, id);
    });
  }

  // ---------------------------------------------------------------------------------------------------------
  // Deciding the rows
  // ---------------------------------------------------------------------------------------------------------

  /** Every row's outcome, local amount, key and proposed category, against the member's entries as they are. */
  private async decide(
    db: DbOrTx,
    memberId: number,
    importId: number,
    lines: StatementLine[],
    settings: ImportSettings,
  ): Promise<repository.StoredRow[]> {
    const keys = importKeys(lines, settings.accountId);
    const priced = await this.priced(lines, keys);
    const decisions = await this.outcomes(db, memberId, importId, priced, settings);
    const categories = await this.categories(db, memberId, priced, decisions);
    return priced.map((row, at) => {
      const decided = decisions[at]!;
      return {
        rowIndex: row.line.index,
        line: row.line,
        amount: row.amount,
        exchangeRate: row.rate,
        outcome: decided.outcome,
        importKey: row.key,
        entryId: decided.entryId,
        cancelsRow: decided.cancelsRow,
        reason: decided.reason,
        category: categories.get(row.line.index) ?? null,
        candidates: decided.candidates,
        wasPending: null,
      };
    });
  }

  /** Local amounts: the file's, or the foreign amount at the rate the file implies or the day's rate. */
  private async priced(
    lines: StatementLine[],
    keys: Map<number, ImportKey>,
  ): Promise<Array<PricedLine & { rate: string | null }>> {
    const rates = new Map<string, Promise<string | null>>();
    const rateOf = (currency: string, date: string) => {
      const key = `${currency}:${date}`;
      if (!rates.has(key)) rates.set(key, this.dayRate(currency, date));
      return rates.get(key)!;
    };
    return Promise.all(
      lines.map(async (line) => {
        const key = keys.get(line.index) ?? null;
        if (line.kind !== 'TRANSACTION' || !line.currency || line.originalAmount === null) {
          return { line, key, amount: line.amount, unpriced: null, rate: null };
        }
        if (line.amount !== null) {
          return {
            line,
            key,
            amount: line.amount,
            unpriced: null,
            rate: impliedRate(line.amount, line.originalAmount),
          };
        }
        const rate = line.date ? await rateOf(line.currency, line.date) : null;
        const amount = rate === null ? null : convertedAmount(line.originalAmount, rate);
        const unpriced = amount === null ? `no ${line.currency} rate of ${line.date} to convert the amount` : null;
        return { line, key, amount, unpriced, rate };
      }),
    );
  }

  /** The day's rate to the won, or null when the provider has none (or is not set up): the row is INVALID. */
  private async dayRate(currency: string, date: string): Promise<string | null> {
    try {
      return storedRate((await this.deps.exchangeRates.rateFor(currency, 'KRW', date)).rate);
    } catch (error) {
      this.deps.logger.warn({ err: error, currency, date }, 'no exchange rate for a statement row');
      return null;
    }
  }

  private async outcomes(
    db: DbOrTx,
    memberId: number,
    importId: number,
    lines: PricedLine[],
    settings: ImportSettings,
  ): Promise<RowDecision[]> {
    const transactions = lines.filter((row) => row.line.kind === 'TRANSACTION' && row.line.date && row.amount !== null);
    const keys = transactions.map((row) => row.key).filter((key): key is ImportKey => key !== null);
    const known = await repository.knownKeys(db, memberId, keys, importId);
    const importedPurchases = await this.importedPurchases(db, memberId, transactions, settings.accountId);
    const dates = transactions.map((row) => row.line.date!).sort();
    const entries =
      dates.length === 0
        ? []
        : await repository.entriesNear(
            db,
            memberId,
            {
              from: addDays(dates[0]!, -Math.max(CANCELLATION_WINDOW_DAYS, this.deps.rules.matchWindowDays)),
              to: addDays(dates.at(-1)!, this.deps.rules.matchWindowDays),
            },
            [...new Set(transactions.map((row) => row.amount!))],
          );
    return decideOutcomes({
      lines,
      walletId: settings.accountId,
      excluded: new Set(settings.excluded),
      choices: new Map(settings.choices),
      known,
      importedPurchases,
      entries,
      matchWindowDays: this.deps.rules.matchWindowDays,
    });
  }

  /** For each numbered cancellation, the entry its purchase was imported as. */
  private async importedPurchases(
    db: DbOrTx,
    memberId: number,
    rows: PricedLine[],
    walletId: number | null,
  ): Promise<Map<number, number>> {
    const byRow = new Map(
      rows.filter((row) => row.line.cancellation).map((row) => [row.line.index, purchaseKeysOf(row.line, walletId)]),
    );
    const found = await repository.entriesWithKeys(db, memberId, [...byRow.values()].flat());
    const purchases = new Map<number, number>();
    for (const [row, keys] of byRow) {
      const entryId = keys.map((key) => found.get(key)).find((id) => id !== undefined);
      if (entryId !== undefined) purchases.set(row, entryId);
    }
    return purchases;
  }

  /** The category each NEW row will get: learned from the member's entries of the same merchant (spec rule 3). */
  private async categories(
    db: DbOrTx,
    memberId: number,
    rows: PricedLine[],
    decisions: RowDecision[],
  ): Promise<Map<number, string>> {
    const learned = new Map<string, Promise<string | null>>();
    const found = new Map<number, string>();
    for (const [at, row] of rows.entries()) {
      if (decisions[at]!.outcome !== 'NEW' || !row.line.type || !row.line.description) continue;
      const key = `${row.line.type}:${row.line.description}`;
      if (!learned.has(key)) learned.set(key, learnedCategory(db, memberId, row.line.type, row.line.description));
      const category = await learned.get(key)!;
      if (category) found.set(row.line.index, category);
    }
    return found;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Commit and undo
  // ---------------------------------------------------------------------------------------------------------

  /**
   * Creates the NEW rows, confirms the MATCHED ones and removes what the cancellations cancel, in one
   * transaction under the member's import lock; every outcome is decided again inside it (an entry made
   * since the preview is seen), and every entry keeps its row's key, so nothing is ever imported twice.
   */
  async commit(memberId: number, id: number): Promise<Import> {
    const committed = await withConstraintErrors(() =>
      this.deps.db.transaction(async (tx) => {
        const current = await this.existing(tx, memberId, id, true);
        if (current.status === 'COMMITTED') return current;
        if (current.status !== 'PREVIEW') throw committedConflict();
        await lockMemberImports(tx, memberId);
        await shareMemberCategories(tx, memberId);
        const settings = current.settings as ImportSettings;
        const stored = await repository.rowsOf(tx, memberId, id, this.deps.giveWay);
        const rows = await this.decideAgain(tx, memberId, id, stored, settings);
        const applied = await this.apply(tx, memberId, rows, settings.accountId);
        await repository.updateDecisions(tx, memberId, id, applied, this.deps.giveWay);
        return repository.updateImport(tx, memberId, id, {
          status: 'COMMITTED',
          committedAt: sql`now()`,
          counts: countsOf(applied),
          fileBytes: null,
        });
      }),
    );
    return this.view(committed);
  }

  /** The stored rows decided against the entries as they are now (their amounts and rates as previewed). */
  private async decideAgain(
    tx: DbOrTx,
    memberId: number,
    id: number,
    stored: repository.StoredRow[],
    settings: ImportSettings,
  ): Promise<repository.StoredRow[]> {
    const priced = stored.map((row) => ({
      line: row.line as StatementLine,
      key: row.importKey,
      amount: row.amount,
      unpriced: row.outcome === 'INVALID' ? row.reason : null,
    }));
    const decisions = await this.outcomes(tx, memberId, id, priced, settings);
    return stored.map((row, at) => ({ ...row, ...pick(decisions[at]!) }));
  }

  /** Writes the decided rows' entries; returns the rows with the entries they created or confirmed. */
  private async apply(
    tx: DbOrTx,
    memberId: number,
    rows: repository.StoredRow[],
    walletId: number | null,
  ): Promise<repository.StoredRow[]> {
    const onCard =
      walletId !== null && (await repository.walletTypeOf(tx, memberId, walletId)) === INSTALMENT_WALLET_TYPE;
    const names = await repository.categoryNames(tx, memberId);
    const created = new Map(
      await this.inBatches(
        rows.filter((row) => row.outcome === 'NEW'),
        (batch) => insertEntries(tx, memberId, batch, { walletId, onCard, names }),
      ),
    );
    const confirmed = new Map(
      await this.inBatches(
        rows.filter((row) => row.outcome === 'MATCHED'),
        (batch) => confirmEntries(tx, memberId, batch),
      ),
    );
    await removeCancelled(tx, memberId, rows);
    return rows.map((row) => {
      if (row.outcome === 'NEW') return { ...row, entryId: created.get(row.rowIndex) ?? null };
      if (row.outcome === 'MATCHED') return { ...row, wasPending: confirmed.get(row.rowIndex) ?? null };
      return row;
    });
  }

  /** `write` per batch of rows, each a step that gives way (P35); the batches' results in order. */
  private async inBatches<R>(
    rows: repository.StoredRow[],
    write: (batch: repository.StoredRow[]) => Promise<Iterable<R>>,
  ): Promise<R[]> {
    const results: R[] = [];
    for (const batch of repository.batchesOf(rows)) results.push(...(await this.deps.giveWay(() => write(batch))));
    return results;
  }

  /**
   * Deletes the entries the import created and makes the entries it confirmed pending again (without its key),
   * except entries edited since the commit, which stay as they are and are named with the reason.
   */
  async undo(memberId: number, id: number): Promise<ImportUndoResult> {
    return this.deps.db.transaction(async (tx) => {
      const current = await this.existing(tx, memberId, id, true);
      if (current.status !== 'COMMITTED') {
        throw new ConflictError('IMPORT_NOT_COMMITTED', 'Only a committed import can be undone.');
      }
      if (await repository.undoExpired(tx, memberId, id, this.deps.rules.undoHours)) {
        throw new ConflictError('IMPORT_UNDO_EXPIRED', 'This import can no longer be undone.');
      }
      await lockMemberImports(tx, memberId);
      const rows = await repository.rowsOf(tx, memberId, id, this.deps.giveWay);
      const committedAt = committedAtOf(memberId, id);
      const removed = ascending(await this.inBatches(rows, (batch) => removeCreated(tx, memberId, batch, committedAt)));
      const reverted = ascending(
        await this.inBatches(rows, (batch) => revertConfirmed(tx, memberId, batch, committedAt)),
      );
      const touched = new Set([...removed, ...reverted]);
      const kept = rows
        .filter((row) => (row.outcome === 'NEW' || row.outcome === 'MATCHED') && row.entryId !== null)
        .filter((row) => !touched.has(row.entryId!))
        .map((row) => ({ entryId: row.entryId!, reason: 'edited or deleted since the import' }));
      const undone = await repository.updateImport(tx, memberId, id, {
        status: 'UNDONE',
        undoneAt: sql`now()`,
      });
      return { import: this.view(undone), removed, kept, reverted };
    });
  }

  private undoableUntil(row: StatementImport): Date | null {
    if (row.status !== 'COMMITTED' || !row.committedAt) return null;
    return new Date(row.committedAt.getTime() + this.deps.rules.undoHours * 3_600_000);
  }

  // ---------------------------------------------------------------------------------------------------------
  // Profiles and views
  // ---------------------------------------------------------------------------------------------------------

  async profiles(memberId: number): Promise<{ items: ImportProfile[] }> {
    const rows = await repository.profilesOf(this.deps.db, memberId);
    const items = await Promise.all(rows.map((row) => this.profileView(row)));
    return { items };
  }

  private async profileView(row: Awaited<ReturnType<typeof repository.profilesOf>>[number]): Promise<ImportProfile> {
    const shape = row.settings as { format?: string; header?: string[] };
    return {
      id: row.id,
      name: row.name,
      format: (shape.format ?? 'CSV') as ImportProfile['format'],
      header: shape.header ?? [],
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  }

  /** Stops the reader's worker (the app's close). */
  close(): Promise<void> {
    return this.deps.reader.close();
  }

  async deleteProfile(memberId: number, id: number): Promise<void> {
    if (!(await repository.deleteProfile(this.deps.db, memberId, id))) throw new NotFoundError('profile');
  }

  private async existing(db: DbOrTx, memberId: number, id: number, lock = false): Promise<StatementImport> {
    const row = await repository.importOf(db, memberId, id, lock);
    if (!row) throw new NotFoundError('import');
    return row;
  }

  private view(row: StatementImport): Import {
    return importView(row, this.undoableUntil(row));
  }
}

/**
 * The import's `committed_at` as SQL: the commit's own `now()`, which is also the `updated_at` of every entry it
 * wrote, compared in the database at full precision (a JavaScript Date would lose the microseconds).
 */
const committedAtOf = (memberId: number, id: number): SQL =>
  sql`(select committed_at from statement_import where member_id = ${memberId}::int and id = ${id}::int)`;

const pick = (decided: RowDecision) => ({
  outcome: decided.outcome,
  entryId: decided.entryId,
  cancelsRow: decided.cancelsRow,
  reason: decided.reason,
  candidates: decided.candidates,
});

function countsOf(rows: readonly { outcome: ImportOutcome }[]): ImportCounts {
  const counts = { ...EMPTY_COUNTS };
  for (const row of rows) counts[row.outcome] += 1;
  return counts;
}

/** Where a mapping does not fit the header: indexes past it, and the columns every mapping needs. */
function mappingIssues(mapping: ColumnMapping, header: readonly string[]): string[] {
  const issues: string[] = [];
  for (const [field, column] of Object.entries(mapping)) {
    if (typeof column === 'number' && column >= header.length)
      issues.push(`${field}: no column ${column} in the header`);
  }
  const single = mapping.amount !== null;
  const split = mapping.withdrawal !== null || mapping.deposit !== null;
  if (single === split) issues.push('amount: map one amount column, or withdrawal and deposit columns');
  if (single && mapping.sign === null) issues.push('sign: a single amount column needs its sign convention');
  return issues;
}

function assertMapping(mapping: ColumnMapping, header: readonly string[]): void {
  const issues = mappingIssues(mapping, header);
  if (issues.length > 0) {
    throw new ValidationFailedError(
      issues.map((issue) => {
        const [field, message] = issue.split(': ');
        return { path: `body.mapping.${field}`, message: message! };
      }),
    );
  }
}

function adjustedSettings(before: ImportSettings, request: AdjustImportRequest): ImportSettings {
  const excluded = new Set(before.excluded);
  for (const row of request.exclude ?? []) excluded.add(row);
  for (const row of request.include ?? []) excluded.delete(row);
  const choices = new Map(before.choices);
  for (const { row, entryId } of request.matches ?? []) choices.set(row, entryId);
  return {
    ...before,
    mapping: request.mapping ?? before.mapping,
    dateOrder: request.dateOrder ?? before.dateOrder,
    currency: request.currency ?? before.currency ?? 'KRW',
    accountId: request.accountId === undefined ? before.accountId : request.accountId,
    excluded: [...excluded].sort((a, b) => a - b),
    choices: [...choices].sort(([a], [b]) => a - b),
    profile: request.mapping || request.dateOrder ? null : before.profile,
  };
}

interface EntryPlacement {
  walletId: number | null;
  onCard: boolean;
  names: Set<string>;
}

/** Inserts a batch of NEW rows' entries in one statement (ON CONFLICT on the key: never twice); their ids by row. */
async function insertEntries(
  tx: DbOrTx,
  memberId: number,
  rows: repository.StoredRow[],
  placement: EntryPlacement,
): Promise<Map<number, number>> {
  if (rows.length === 0) return new Map();
  const values = rows.map((row) => {
    const line = row.line as StatementLine;
    const foreign = line.currency && line.originalAmount !== null && row.exchangeRate !== null;
    const categoryName = row.category && placement.names.has(`${line.type}:${row.category}`) ? row.category : null;
    return {
      row_index: row.rowIndex,
      type: line.type,
      amount: row.amount,
      entry_date: line.date,
      memo: line.description ? Array.from(line.description).slice(0, MEMO_MAX).join('') : null,
      category: categoryName,
      currency: foreign ? line.currency : null,
      original_amount: foreign ? line.originalAmount : null,
      exchange_rate: foreign ? row.exchangeRate : null,
      installment_months: placement.onCard && line.type === 'EXPENSE' ? line.installmentMonths : null,
      import_key: row.importKey,
    };
  });
  const inserted = (await tx.execute(sql`
    with source as (
      select * from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(
        row_index int, type ledger_type, amount bigint, entry_date date, memo text, category text, currency char(3),
        original_amount numeric, exchange_rate numeric, installment_months int, import_key text)
    ), inserted as (
      insert into account_entry (member_id, account_id, type, amount, entry_date, memo, category, currency,
                                 original_amount, exchange_rate, installment_months, pending, import_key)
      select ${memberId}::int, ${placement.walletId}::int, s.type, s.amount, s.entry_date, s.memo, s.category,
             s.currency, s.original_amount, s.exchange_rate, s.installment_months, false, s.import_key
        from source s order by s.row_index
      on conflict (member_id, import_key) do nothing
      returning id, import_key
    )
    select s.row_index, i.id from inserted i join source s on s.import_key = i.import_key`)) as unknown as {
    row_index: number;
    id: number;
  }[];
  return new Map(inserted.map((row) => [row.row_index, row.id]));
}

/** Confirms the MATCHED rows' entries and gives them the rows' keys; whether each was pending, by row. */
async function confirmEntries(
  tx: DbOrTx,
  memberId: number,
  rows: repository.StoredRow[],
): Promise<Map<number, boolean>> {
  if (rows.length === 0) return new Map();
  const values = rows.map((row) => ({ row_index: row.rowIndex, id: row.entryId, import_key: row.importKey }));
  const updated = (await tx.execute(sql`
    with source as (
      select * from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(row_index int, id int, import_key text)
    ), before as (
      select e.id, e.pending from account_entry e join source s on e.member_id = ${memberId}::int and e.id = s.id
       for update of e
    )
    update account_entry e set pending = false, import_key = s.import_key, updated_at = now()
      from source s join before b on b.id = s.id
     where e.member_id = ${memberId}::int and e.id = s.id and e.import_key is null
    returning s.row_index, b.pending as was_pending`)) as unknown as { row_index: number; was_pending: boolean }[];
  return new Map(updated.map((row) => [row.row_index, row.was_pending]));
}

/** Deletes the entries cancellation rows cancel (their purchases in this file were never created). */
async function removeCancelled(tx: DbOrTx, memberId: number, rows: repository.StoredRow[]): Promise<void> {
  const ids = rows.filter((row) => row.outcome === 'CANCELLATION' && row.entryId !== null).map((row) => row.entryId!);
  if (ids.length === 0) return;
  await tx.execute(
    sql`delete from account_entry where member_id = ${memberId}::int and id = any(${`{${ids.join(',')}}`}::int[])`,
  );
}

/** Deletes the created entries not changed since the commit; their ids. */
async function removeCreated(
  tx: DbOrTx,
  memberId: number,
  rows: repository.StoredRow[],
  committedAt: SQL,
): Promise<number[]> {
  const created = rows.filter((row) => row.outcome === 'NEW' && row.entryId !== null);
  if (created.length === 0) return [];
  const ids = `{${created.map((row) => row.entryId).join(',')}}`;
  const removed = (await tx.execute(sql`
    delete from account_entry
     where member_id = ${memberId}::int and id = any(${ids}::int[]) and updated_at <= ${committedAt}
       and import_key is not null
    returning id`)) as unknown as { id: number }[];
  return removed.map((row) => row.id);
}

/** Makes the confirmed entries not changed since the commit as they were (pending again, no key); their ids. */
async function revertConfirmed(
  tx: DbOrTx,
  memberId: number,
  rows: repository.StoredRow[],
  committedAt: SQL,
): Promise<number[]> {
  const confirmed = rows.filter((row) => row.outcome === 'MATCHED' && row.entryId !== null);
  if (confirmed.length === 0) return [];
  const values = confirmed.map((row) => ({ id: row.entryId, pending: row.wasPending ?? false }));
  const reverted = (await tx.execute(sql`
    update account_entry e set pending = v.pending, import_key = null, updated_at = now()
      from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(id int, pending boolean)
     where e.member_id = ${memberId}::int and e.id = v.id and e.updated_at <= ${committedAt}
    returning e.id`)) as unknown as { id: number }[];
  return reverted.map((row) => row.id);
}

const ascending = (ids: number[]) => ids.sort((a, b) => a - b);

function encodeListCursor(row: StatementImport): string {
  return Buffer.from(JSON.stringify([row.createdAt.toISOString(), row.id])).toString('base64url');
}

function decodeListCursor(cursor: string): { at: Date; id: number } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [string, number];
    const when = new Date(at);
    if (Number.isInteger(id) && !Number.isNaN(when.getTime())) return { at: when, id };
  } catch {
    // falls through to the refusal
  }
  throw cursorInvalid();
}

const cursorInvalid = () => new BadRequestError('CURSOR_INVALID', 'The cursor is not one this list gave.');

function decodeRowCursor(cursor: string): number {
  const index = Number(cursor);
  if (!Number.isInteger(index) || index < 0) throw cursorInvalid();
  return index;
}
