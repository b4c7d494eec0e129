/**
 * Erste Bank Hungary account history, CSV written in UTF-16LE with a byte-order mark, comma-delimited, dates
 * YYYY.MM.DD, amounts in HUF. Writes statement.csv and expected.json. Every value is invented (see SOURCE.md).
 * Run: pnpm --filter @nestegg/statements corpus
 */
import { join } from 'node:path';
import { expense, income, type Line, mapping, row, writeExpected } from '../lib/expected';
import { shapeDir, writeDelimited } from '../lib/write';

const dir = shapeDir(import.meta.url);

const header = [
  'Booking Date',
  'Amount',
  'Currency',
  'Partner Name',
  'Partner IBAN',
  'Partner Account Number',
  'Bank Code',
  'Transaction Date Time',
  'Transaction Type',
];

const huf = (kind: 'in' | 'out', date: string, time: string, partner: string, original: string): Line =>
  (kind === 'in' ? income : expense)(date, partner, 0, {
    amount: null,
    time,
    currency: 'HUF',
    originalAmount: original,
  });

// The date that matters is when the card was used (Transaction Date Time); booking follows a day later.
const rows = [
  row(
    ['2026.03.02', '-4590', 'HUF', 'SPAR MAGYARORSZAG KFT', '', '', '', '2026.03.01 14:31:05', 'Card payment'],
    huf('out', '2026-03-01', '14:31:05', 'SPAR MAGYARORSZAG KFT', '4590'),
  ),
  row(
    ['2026.03.03', '-12990', 'HUF', 'MOL NYRT', '', '', '', '2026.03.02 08:10:44', 'Card payment'],
    huf('out', '2026-03-02', '08:10:44', 'MOL NYRT', '12990'),
  ),
  row(
    [
      '2026.03.05',
      '250000',
      'HUF',
      'KIM MINJI',
      'HU00 0000 0000 0000 0000 0000 0000',
      '',
      '',
      '2026.03.05 09:00:00',
      'Transfer',
    ],
    huf('in', '2026-03-05', '09:00:00', 'KIM MINJI', '250000'),
  ),
  row(
    ['2026.03.06', '-1590', 'HUF', 'BKK ZRT', '', '', '', '2026.03.06 07:45:12', 'Card payment'],
    huf('out', '2026-03-06', '07:45:12', 'BKK ZRT', '1590'),
  ),
];

const rowNumbers = writeDelimited(
  join(dir, 'statement.csv'),
  { preamble: [], header, rows: rows.map((r) => r.cells), delimiter: ',' },
  'UTF-16LE',
);

writeExpected(
  dir,
  {
    format: 'CSV',
    encoding: 'UTF-16LE',
    delimiter: ',',
    sheet: null,
    headerRow: 0,
    mapping: mapping({
      amount: 1,
      sign: 'NEGATIVE_IS_EXPENSE',
      currency: 2,
      description: 3,
      date: 7,
      // Transaction Type (Card payment, Transfer) is read as a status column: a reversal there would cancel.
      status: 8,
    }),
    dateOrder: 'YMD',
  },
  rows.map((r) => r.line),
  rowNumbers,
);
