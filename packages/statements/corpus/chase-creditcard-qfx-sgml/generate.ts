/**
 * Chase credit card download as QFX: OFX 1.02 SGML (unclosed leaf tags, a colon header), CREDITCARDMSGSRSV1/CCSTMTRS,
 * amounts in USD. Writes statement.qfx and expected.json. Every value is invented (see SOURCE.md).
 * Run: pnpm --filter @nestegg/statements corpus
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cancelled, expense, type Line, mapping, writeExpected } from '../lib/expected';
import { encode, shapeDir } from '../lib/write';

const dir = shapeDir(import.meta.url);

interface Trn {
  type: 'DEBIT' | 'CREDIT';
  posted: string;
  amount: string;
  fitId: string;
  name: string;
  line: Line;
}

const usd = (date: string, name: string, original: string, fitId: string): Line =>
  expense(date, name, 0, {
    amount: null,
    time: '12:00:00',
    currency: 'USD',
    originalAmount: original,
    transactionId: fitId,
  });

const trns: Trn[] = [
  {
    type: 'DEBIT',
    posted: '20260302120000[0:GMT]',
    amount: '-18.45',
    fitId: '2026030224692160000118450001',
    name: 'STARBUCKS STORE 05512',
    line: usd('2026-03-02', 'STARBUCKS STORE 05512', '18.45', '2026030224692160000118450001'),
  },
  {
    type: 'DEBIT',
    posted: '20260303120000[0:GMT]',
    amount: '-64.20',
    fitId: '2026030324692160000164200002',
    name: 'WHOLEFDS MKT 10231',
    line: usd('2026-03-03', 'WHOLEFDS MKT 10231', '64.20', '2026030324692160000164200002'),
  },
  {
    type: 'DEBIT',
    posted: '20260305120000[0:GMT]',
    amount: '-12.99',
    fitId: '2026030524692160000112990003',
    name: 'NETFLIX.COM',
    line: usd('2026-03-05', 'NETFLIX.COM', '12.99', '2026030524692160000112990003'),
  },
  // A return to the same shop: TRNTYPE CREDIT, positive amount on a card statement = a cancellation.
  {
    type: 'CREDIT',
    posted: '20260306120000[0:GMT]',
    amount: '64.20',
    fitId: '2026030624692160000164200004',
    name: 'WHOLEFDS MKT 10231',
    line: cancelled('2026-03-06', 'WHOLEFDS MKT 10231', null, {
      time: '12:00:00',
      currency: 'USD',
      originalAmount: '64.20',
      transactionId: '2026030624692160000164200004',
    }),
  },
  {
    type: 'DEBIT',
    posted: '20260309120000[0:GMT]',
    amount: '-7.50',
    fitId: '2026030924692160000107500005',
    name: 'MTA*NYCT PAYGO',
    line: usd('2026-03-09', 'MTA*NYCT PAYGO', '7.50', '2026030924692160000107500005'),
  },
];

const lines: string[] = [
  'OFXHEADER:100',
  'DATA:OFXSGML',
  'VERSION:102',
  'SECURITY:NONE',
  'ENCODING:USASCII',
  'CHARSET:1252',
  'COMPRESSION:NONE',
  'OLDFILEUID:NONE',
  'NEWFILEUID:NONE',
  '',
  '<OFX>',
  '<SIGNONMSGSRSV1>',
  '<SONRS>',
  '<STATUS>',
  '<CODE>0',
  '<SEVERITY>INFO',
  '</STATUS>',
  '<DTSERVER>20260401090000[0:GMT]',
  '<LANGUAGE>ENG',
  '<FI>',
  '<ORG>B1',
  '<FID>10898',
  '</FI>',
  '<INTU.BID>10898',
  '</SONRS>',
  '</SIGNONMSGSRSV1>',
  '<CREDITCARDMSGSRSV1>',
  '<CCSTMTTRNRS>',
  '<TRNUID>1',
  '<STATUS>',
  '<CODE>0',
  '<SEVERITY>INFO',
  '<MESSAGE>Success',
  '</STATUS>',
  '<CCSTMTRS>',
  '<CURDEF>USD',
  '<CCACCTFROM>',
  '<ACCTID>XXXXXXXXXXXX5678',
  '</CCACCTFROM>',
  '<BANKTRANLIST>',
  '<DTSTART>20260301120000[0:GMT]',
  '<DTEND>20260331120000[0:GMT]',
];
const rowNumbers: number[] = [];
for (const t of trns) {
  rowNumbers.push(lines.length + 1);
  lines.push(
    '<STMTTRN>',
    `<TRNTYPE>${t.type}`,
    `<DTPOSTED>${t.posted}`,
    `<TRNAMT>${t.amount}`,
    `<FITID>${t.fitId}`,
    `<NAME>${t.name}`,
    '</STMTTRN>',
  );
}
lines.push(
  '</BANKTRANLIST>',
  '<LEDGERBAL>',
  '<BALAMT>-38.94',
  '<DTASOF>20260331120000[0:GMT]',
  '</LEDGERBAL>',
  '<AVAILBAL>',
  '<BALAMT>4961.06',
  '<DTASOF>20260331120000[0:GMT]',
  '</AVAILBAL>',
  '</CCSTMTRS>',
  '</CCSTMTTRNRS>',
  '</CREDITCARDMSGSRSV1>',
  '</OFX>',
);
writeFileSync(join(dir, 'statement.qfx'), encode(`${lines.join('\r\n')}\r\n`, 'UTF-8'));

writeExpected(
  dir,
  {
    format: 'OFX',
    encoding: 'UTF-8',
    delimiter: null,
    sheet: null,
    headerRow: 0,
    // The header OFX tables are synthesised with: DTPOSTED, TRNAMT, NAME, MEMO, FITID, TRNTYPE.
    mapping: mapping({
      date: 0,
      amount: 1,
      sign: 'NEGATIVE_IS_EXPENSE',
      description: 2,
      transactionId: 4,
      status: 5,
    }),
    dateOrder: 'YMD',
  },
  trns.map((t) => t.line),
  rowNumbers,
);
