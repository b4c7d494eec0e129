/**
 * Wise (formerly TransferWise) USD balance statement, CSV, UTF-8 without BOM, every cell quoted, dates DD-MM-YYYY
 * with every day ≤ 12 (so the data alone cannot tell DMY from MDY). Writes statement.csv and expected.json.
 * Every value is invented (see SOURCE.md). Run: pnpm --filter @nestegg/statements corpus
 */
import { join } from 'node:path';
import { expense, income, type Line, mapping, row, writeExpected } from '../lib/expected';
import { shapeDir, writeDelimited } from '../lib/write';

const dir = shapeDir(import.meta.url);

const header = [
  'TransferWise ID',
  'Date',
  'Amount',
  'Currency',
  'Description',
  'Payment Reference',
  'Running Balance',
  'Exchange From',
  'Exchange To',
  'Exchange Rate',
  'Payer Name',
  'Payee Name',
  'Payee Account Number',
  'Merchant',
  'Total fees',
];

const usd = (
  kind: 'in' | 'out',
  date: string,
  description: string,
  original: string,
  id: string,
  balance: number,
): Line =>
  (kind === 'in' ? income : expense)(date, description, 0, {
    amount: null,
    currency: 'USD',
    originalAmount: original,
    transactionId: id,
    balance,
  });

const card = (amount: string, merchant: string) => `Card transaction of ${amount} USD issued by ${merchant}`;

const rows = [
  row(
    [
      'CARD-1001122334',
      '02-03-2026',
      '-4.85',
      'USD',
      card('4.85', 'Blue Bottle Coffee NEW YORK'),
      '',
      '1245.15',
      '',
      '',
      '',
      '',
      '',
      '',
      'Blue Bottle Coffee',
      '0.00',
    ],
    usd('out', '2026-03-02', card('4.85', 'Blue Bottle Coffee NEW YORK'), '4.85', 'CARD-1001122334', 1245.15),
  ),
  row(
    [
      'TRANSFER-2233445566',
      '05-03-2026',
      '1000.00',
      'USD',
      'Received money from KIM JIHOON with reference March',
      'March',
      '2245.15',
      '',
      '',
      '',
      'KIM JIHOON',
      '',
      '',
      '',
      '0.00',
    ],
    usd(
      'in',
      '2026-03-05',
      'Received money from KIM JIHOON with reference March',
      '1000.00',
      'TRANSFER-2233445566',
      2245.15,
    ),
  ),
  // Two identical purchases on one day at the same shop, two ids: two lines.
  row(
    [
      'CARD-1001122401',
      '07-03-2026',
      '-23.40',
      'USD',
      card('23.40', "Trader Joe's #540 NEW YORK"),
      '',
      '2221.75',
      '',
      '',
      '',
      '',
      '',
      '',
      "Trader Joe's #540",
      '0.00',
    ],
    usd('out', '2026-03-07', card('23.40', "Trader Joe's #540 NEW YORK"), '23.40', 'CARD-1001122401', 2221.75),
  ),
  row(
    [
      'CARD-1001122455',
      '07-03-2026',
      '-23.40',
      'USD',
      card('23.40', "Trader Joe's #540 NEW YORK"),
      '',
      '2198.35',
      '',
      '',
      '',
      '',
      '',
      '',
      "Trader Joe's #540",
      '0.00',
    ],
    usd('out', '2026-03-07', card('23.40', "Trader Joe's #540 NEW YORK"), '23.40', 'CARD-1001122455', 2198.35),
  ),
  row(
    [
      'CARD-1001122501',
      '09-03-2026',
      '-2.90',
      'USD',
      card('2.90', 'MTA*NYCT PAYGO NEW YORK'),
      '',
      '2195.45',
      '',
      '',
      '',
      '',
      '',
      '',
      'MTA*NYCT PAYGO',
      '0.00',
    ],
    usd('out', '2026-03-09', card('2.90', 'MTA*NYCT PAYGO NEW YORK'), '2.90', 'CARD-1001122501', 2195.45),
  ),
  row(
    [
      'TRANSFER-2233445601',
      '12-03-2026',
      '-350.00',
      'USD',
      'Sent money to PARK MINSU',
      'rent share',
      '1845.45',
      '',
      '',
      '',
      '',
      'PARK MINSU',
      '',
      '',
      '1.21',
    ],
    usd('out', '2026-03-12', 'Sent money to PARK MINSU', '350.00', 'TRANSFER-2233445601', 1845.45),
  ),
];

const rowNumbers = writeDelimited(
  join(dir, 'statement.csv'),
  { preamble: [], header, rows: rows.map((r) => r.cells), delimiter: ',', quoteAll: true, lineEnd: '\n' },
  'UTF-8',
);

writeExpected(
  dir,
  {
    format: 'CSV',
    encoding: 'UTF-8',
    delimiter: ',',
    sheet: null,
    headerRow: 0,
    mapping: mapping({
      transactionId: 0,
      date: 1,
      amount: 2,
      sign: 'NEGATIVE_IS_EXPENSE',
      currency: 3,
      description: 4,
      balance: 6,
    }),
    // The data cannot tell: proposeMapping must answer dateOrder null with candidates DMY and MDY (see SOURCE.md);
    // the lines are read under DMY, the true order, which the member confirms.
    dateOrder: 'DMY',
    proposal: { dateOrder: null, candidates: ['DMY', 'MDY'] },
  },
  rows.map((r) => r.line),
  rowNumbers,
);
