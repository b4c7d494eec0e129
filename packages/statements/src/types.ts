/** The shared format of @nestegg/statements (see ../FORMAT.md); additions to it are marked "Addition". */

export type StatementFormat = 'CSV' | 'XLSX' | 'OFX' | 'HTML';
/** Addition: `WINDOWS-1252`, only for a file that declares it (OFX `CHARSET:1252`, an HTML `<meta charset>`) and is not UTF-8. */
export type StatementEncoding = 'UTF-8' | 'UTF-8-BOM' | 'UTF-16LE' | 'UTF-16BE' | 'CP949' | 'WINDOWS-1252';
export type DateOrder = 'YMD' | 'DMY' | 'MDY';
/** For a single amount column: which sign is money spent. */
export type SignConvention = 'NEGATIVE_IS_EXPENSE' | 'POSITIVE_IS_EXPENSE';

export interface StatementLimits {
  /** The file's size in bytes (10 MiB). */
  maxBytes: number;
  /** Data rows after the header (50,000). */
  maxRows: number;
  /** XLSX: all entries of the zip together, inflated (100 MiB). */
  maxUnzippedBytes: number;
}

export interface StatementTable {
  format: StatementFormat;
  /** null for XLSX */
  encoding: StatementEncoding | null;
  /** CSV/TSV only: ',', '\t', ';', '|' */
  delimiter: string | null;
  /** XLSX: the sheet read */
  sheet: string | null;
  /** 0-based index, in the file's rows, of the header row (OFX: 0, the synthesised header) */
  headerRow: number;
  /** header cells, trimmed */
  header: string[];
  /** the data rows after the header, each cell as text as the file shows it (trimmed); blank, summary and repeated header rows are still here */
  rows: string[][];
  /** 1-based line (CSV) or row (XLSX, HTML) number in the file of each data row */
  rowNumbers: number[];
  /** OFX only (header/rows are then synthesised from these: DTPOSTED, TRNAMT, NAME, MEMO, FITID, TRNTYPE) */
  transactions?: OfxTransaction[];
  /** OFX CURDEF, else null */
  currency?: string | null;
  /** OFX ACCTID, else null */
  account?: string | null;
  /** Addition. OFX: `CARD` for a credit-card statement (CCSTMTRS), `BANK` for a bank one; else null. */
  accountType?: 'BANK' | 'CARD' | null;
  /**
   * Addition. The statement period, when the lines above the header say it (`조회기간 2026.05.01 ~ 2026.05.31`,
   * `2026년 05월 이용내역`) or OFX DTSTART/DTEND; YYYY-MM-DD. Gives the year of dates written without one (`05월14일`).
   */
  period?: { from: string; to: string } | null;
  /**
   * Addition. XLSX: every sheet whose rows are in `rows`, in the order read (the first is `sheet`): the later ones have
   * the first's header (삼성카드 splits one card's use over sheets), their rows appended after its rows.
   */
  sheets?: string[] | null;
  /** Addition. XLSX read from more than one sheet: each data row's sheet (parallel to `rows`); null for one sheet. */
  rowSheets?: string[] | null;
  /**
   * Addition. XLSX: visible sheets that hold a table of their own under another header (a 해외이용 sheet beside the
   * 국내 one), not read: tell the member, and read one with `readStatement(bytes, name, limits, { sheet })`.
   */
  otherSheets?: string[] | null;
}

/** Addition: how to read a file, beyond its bytes. */
export interface ReadOptions {
  /** XLSX: the sheet to read first (the member's choice among `otherSheets`); sheets with its header follow it. */
  sheet?: string;
}

export interface OfxTransaction {
  fitId: string;
  type: string;
  /** YYYY-MM-DD, the calendar date as written (no time-zone shift) */
  posted: string;
  time: string | null;
  /** decimal as written */
  amount: string;
  name: string | null;
  memo: string | null;
}

export interface MappingProposal {
  mapping: ColumnMapping;
  /** null = the data cannot tell: ask the member, offering `candidates` */
  dateOrder: DateOrder | null;
  candidates: DateOrder[];
}

export interface ColumnMapping {
  /** column index */
  date: number;
  time: number | null;
  /** one signed or unsigned amount column, or… */
  amount: number | null;
  /** …its sign convention (null with withdrawal/deposit) */
  sign: SignConvention | null;
  /** …separate 출금/지출 and 입금/수입 columns */
  withdrawal: number | null;
  deposit: number | null;
  /** merchant / 적요 / 내용 / 가맹점명; -1 when the table has no text column at all */
  description: number;
  /** 승인번호 / transaction id / FITID */
  transactionId: number | null;
  /** 할부(개월) */
  installments: number | null;
  /** foreign currency code column */
  currency: number | null;
  /** amount in that currency */
  foreignAmount: number | null;
  /** card number / account number column */
  card: number | null;
  /** 잔액 */
  balance: number | null;
  /** 취소여부 / 상태 column where a file marks cancellations there; a 입금/출금 (direction) column is read here too */
  status: number | null;
}

export interface NormalizeOptions {
  dateOrder: DateOrder;
  /** The currency of amounts in rows whose file names none ('KRW'). */
  defaultCurrency: string;
  /**
   * Addition, optional: YYYY-MM-DD, the day the file was taken in (the api's clock). Dates written without a year
   * (`05월14일`, `05/14`) take the latest year that puts them on or before the statement period's end, else this day.
   */
  referenceDate?: string;
}

export type StatementLineKind = 'TRANSACTION' | 'SKIPPED' | 'INVALID';

export interface StatementLine {
  /** position in table.rows */
  index: number;
  rowNumber: number;
  /** SKIPPED: blank, repeated header, total/summary or note row (reason says which) */
  kind: StatementLineKind;
  /** for SKIPPED and INVALID, in plain English */
  reason: string | null;
  /** YYYY-MM-DD */
  date: string | null;
  /** HH:MM or HH:MM:SS when the file has it */
  time: string | null;
  /** the type of the entry the row is, or, for a cancellation, the type of the entry it cancels */
  type: 'EXPENSE' | 'INCOME' | null;
  /** whole local-currency units (won), > 0; for a foreign row, the local amount if the file gives one, else null */
  amount: number | null;
  /** ISO code of a foreign row; null for local currency */
  currency: string | null;
  /** foreign amount, exact decimal string ("12.34"), without sign or grouping */
  originalAmount: string | null;
  /** trimmed, inner whitespace collapsed */
  description: string | null;
  transactionId: string | null;
  /** 2..24, null for 일시불 */
  installmentMonths: number | null;
  /** masked card/account text as written */
  card: string | null;
  balance: number | null;
  /** 취소 / refund / reversal rows */
  cancellation: boolean;
}
