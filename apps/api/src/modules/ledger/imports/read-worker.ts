/**
 * The statement reader's worker thread (decision SI1): reads a file into a table, proposes its columns and date
 * order, and normalises its rows — CPU work kept off the event loop. Run by `statement-reader.ts` through piscina.
 */
import {
  type ColumnMapping,
  type DateOrder,
  normalizeRows,
  proposeMapping,
  readStatement,
  StatementError,
  type StatementLine,
} from '@nestegg/statements';
import { lowerThreadPriority } from '../../../lib/worker-script.js';

lowerThreadPriority();

export interface ReadTask {
  bytes: Uint8Array;
  fileName: string;
  /** The mapping and date order to read with; the proposal's when absent. */
  mapping?: ColumnMapping;
  dateOrder?: DateOrder;
  /** Today in the ledger's calendar: the year of dates a file writes without one, when it names no period. */
  referenceDate: string;
  /** The currency of amounts in a file that names none (the won unless the member says otherwise). */
  currency?: string;
}

/** How the file was read (what the import keeps of the table). */
export interface StatementReading {
  format: string;
  encoding: string | null;
  delimiter: string | null;
  sheet: string | null;
  headerRow: number;
  header: string[];
}

export type ReadOutcome =
  | {
      ok: true;
      reading: StatementReading;
      proposal: { mapping: ColumnMapping; dateOrder: DateOrder | null; candidates: DateOrder[] };
      mapping: ColumnMapping;
      dateOrder: DateOrder;
      lines: StatementLine[];
    }
  | { ok: false; code: StatementError['code']; message: string };

export default async function read(task: ReadTask): Promise<ReadOutcome> {
  try {
    const table = await readStatement(task.bytes, task.fileName);
    const proposal = proposeMapping(table, { referenceDate: task.referenceDate });
    const mapping = task.mapping ?? proposal.mapping;
    const dateOrder = task.dateOrder ?? proposal.dateOrder ?? proposal.candidates[0] ?? 'YMD';
    const { format, encoding, delimiter, sheet, headerRow, header } = table;
    return {
      ok: true,
      reading: { format, encoding, delimiter, sheet, headerRow, header },
      proposal: { mapping: proposal.mapping, dateOrder: proposal.dateOrder, candidates: proposal.candidates },
      mapping,
      dateOrder,
      lines: normalizeRows(table, mapping, {
        dateOrder,
        defaultCurrency: task.currency ?? 'KRW',
        referenceDate: task.referenceDate,
      }),
    };
  } catch (error) {
    if (error instanceof StatementError) return { ok: false, code: error.code, message: error.message };
    throw error;
  }
}
