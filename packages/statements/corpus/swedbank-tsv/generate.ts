/**
 * Swedbank account transactions, tab-separated (TSV), UTF-8 with a byte-order mark, dates YYYY-MM-DD, signed amounts
 * with a decimal point, SEK. Writes statement.csv and expected.json. Every value is invented (see SOURCE.md).
 * Run: pnpm --filter @nestegg/statements corpus
 */
import { join } from 'node:path';
import { expense, income, type Line, mapping, row, writeExpected } from '../lib/expected';
import { shapeDir, writeDelimited } from '../lib/write';

const dir = shapeDir(import.meta.url);

const header = [
  'Radnummer',
  'Clearingnummer',
  'Kontonummer',
  'Produkt',
  'Valuta',
  'Bokföringsdag',
  'Transaktionsdag',
  'Valutadag',
  'Referens',
  'Beskrivning',
  'Belopp',
  'Bokfört saldo',
];

const sek = (kind: 'in' | 'out', date: string, text: string, original: string, balance: number): Line =>
  (kind === 'in' ? income : expense)(date, text, 0, {
    amount: null,
    currency: 'SEK',
    originalAmount: original,
    balance,
  });

const account = ['8000', '000000000', 'Privatkonto', 'SEK'];
// Newest first, as the bank lists them. The ledger date is Bokföringsdag, the column the source's importer reads;
// Transaktionsdag (when the card was used) can be a day earlier.
const rows = [
  row(
    [
      '1',
      ...account,
      '2026-03-12',
      '2026-03-11',
      '2026-03-12',
      'ICA NARA SODER',
      'ICA NARA SODER',
      '-342.50',
      '8105.30',
    ],
    sek('out', '2026-03-11', 'ICA NARA SODER', '342.50', 8105.3),
  ),
  row(
    ['2', ...account, '2026-03-09', '2026-03-08', '2026-03-09', 'SL ACCESS', 'SL ACCESS', '-39.00', '8447.80'],
    sek('out', '2026-03-08', 'SL ACCESS', '39.00', 8447.8),
  ),
  row(
    ['3', ...account, '2026-03-06', '2026-03-06', '2026-03-06', 'Swish', 'Swish från LEE SOYEON', '450.00', '8486.80'],
    sek('in', '2026-03-06', 'Swish från LEE SOYEON', '450.00', 8486.8),
  ),
  row(
    ['4', ...account, '2026-03-03', '2026-03-02', '2026-03-03', 'SYSTEMBOLAGET', 'SYSTEMBOLAGET', '-189.00', '8036.80'],
    sek('out', '2026-03-02', 'SYSTEMBOLAGET', '189.00', 8036.8),
  ),
];

const rowNumbers = writeDelimited(
  join(dir, 'statement.csv'),
  { preamble: [], header, rows: rows.map((r) => r.cells), delimiter: '\t' },
  'UTF-8-BOM',
);

writeExpected(
  dir,
  {
    format: 'CSV',
    encoding: 'UTF-8-BOM',
    delimiter: '\t',
    sheet: null,
    headerRow: 0,
    mapping: mapping({
      currency: 4,
      // Transaktionsdag, the day of the purchase, as for every shape with several date columns (see the README).
      date: 6,
      description: 9,
      amount: 10,
      sign: 'NEGATIVE_IS_EXPENSE',
      balance: 11,
    }),
    dateOrder: 'YMD',
  },
  rows.map((r) => r.line),
  rowNumbers,
);
