/**
 * A checking account's OFX 2.1.1 download: XML (every tag closed, an <?xml?> and <?OFX?> header), BANKMSGSRSV1/STMTRS,
 * amounts in USD, an entity-escaped name. Writes statement.ofx and expected.json. Every value is invented (SOURCE.md).
 * Run: pnpm --filter @nestegg/statements corpus
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expense, income, type Line, mapping, writeExpected } from '../lib/expected';
import { encode, shapeDir } from '../lib/write';

const dir = shapeDir(import.meta.url);

interface Trn {
  type: string;
  posted: string;
  amount: string;
  fitId: string;
  /** As written in the XML (entities escaped). */
  name: string;
  memo?: string;
  checkNum?: string;
  line: Line;
}

const money = (kind: 'in' | 'out', date: string, name: string, original: string, fitId: string): Line =>
  (kind === 'in' ? income : expense)(date, name, 0, {
    amount: null,
    currency: 'USD',
    originalAmount: original,
    transactionId: fitId,
  });

const trns: Trn[] = [
  {
    type: 'DIRECTDEP',
    posted: '20260301',
    amount: '3200.00',
    fitId: '202603010001',
    name: 'ACME CORP PAYROLL',
    memo: 'PPD ID: 9876543210',
    line: money('in', '2026-03-01', 'ACME CORP PAYROLL', '3200.00', '202603010001'),
  },
  {
    type: 'POS',
    posted: '20260302',
    amount: '-54.18',
    fitId: '202603020002',
    name: "TRADER JOE'S #552",
    line: money('out', '2026-03-02', "TRADER JOE'S #552", '54.18', '202603020002'),
  },
  {
    type: 'CHECK',
    posted: '20260305',
    amount: '-1250.00',
    fitId: '202603050003',
    name: 'CHECK 1042',
    checkNum: '1042',
    line: money('out', '2026-03-05', 'CHECK 1042', '1250.00', '202603050003'),
  },
  // An ampersand in the name, escaped as XML requires: the description is the unescaped text.
  {
    type: 'DEBIT',
    posted: '20260307',
    amount: '-85.00',
    fitId: '202603070004',
    name: 'AT&amp;T WIRELESS',
    memo: 'AUTOPAY',
    line: money('out', '2026-03-07', 'AT&T WIRELESS', '85.00', '202603070004'),
  },
  {
    type: 'ATM',
    posted: '20260310',
    amount: '-100.00',
    fitId: '202603100005',
    name: 'ATM WITHDRAWAL',
    line: money('out', '2026-03-10', 'ATM WITHDRAWAL', '100.00', '202603100005'),
  },
  {
    type: 'CREDIT',
    posted: '20260331',
    amount: '0.42',
    fitId: '202603310006',
    name: 'INTEREST PAYMENT',
    line: money('in', '2026-03-31', 'INTEREST PAYMENT', '0.42', '202603310006'),
  },
];

const lines: string[] = [
  '<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
  '<?OFX OFXHEADER="200" VERSION="211" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>',
  '<OFX>',
  '  <SIGNONMSGSRSV1>',
  '    <SONRS>',
  '      <STATUS>',
  '        <CODE>0</CODE>',
  '        <SEVERITY>INFO</SEVERITY>',
  '      </STATUS>',
  '      <DTSERVER>20260401090000.000[-5:EST]</DTSERVER>',
  '      <LANGUAGE>ENG</LANGUAGE>',
  '    </SONRS>',
  '  </SIGNONMSGSRSV1>',
  '  <BANKMSGSRSV1>',
  '    <STMTTRNRS>',
  '      <TRNUID>0</TRNUID>',
  '      <STATUS>',
  '        <CODE>0</CODE>',
  '        <SEVERITY>INFO</SEVERITY>',
  '      </STATUS>',
  '      <STMTRS>',
  '        <CURDEF>USD</CURDEF>',
  '        <BANKACCTFROM>',
  '          <BANKID>000000000</BANKID>',
  '          <ACCTID>XXXXXX4321</ACCTID>',
  '          <ACCTTYPE>CHECKING</ACCTTYPE>',
  '        </BANKACCTFROM>',
  '        <BANKTRANLIST>',
  '          <DTSTART>20260301</DTSTART>',
  '          <DTEND>20260331</DTEND>',
];
const rowNumbers: number[] = [];
for (const t of trns) {
  rowNumbers.push(lines.length + 1);
  lines.push('          <STMTTRN>');
  lines.push(`            <TRNTYPE>${t.type}</TRNTYPE>`);
  lines.push(`            <DTPOSTED>${t.posted}</DTPOSTED>`);
  lines.push(`            <TRNAMT>${t.amount}</TRNAMT>`);
  lines.push(`            <FITID>${t.fitId}</FITID>`);
  if (t.checkNum) lines.push(`            <CHECKNUM>${t.checkNum}</CHECKNUM>`);
  lines.push(`            <NAME>${t.name}</NAME>`);
  if (t.memo) lines.push(`            <MEMO>${t.memo}</MEMO>`);
  lines.push('          </STMTTRN>');
}
lines.push(
  '        </BANKTRANLIST>',
  '        <LEDGERBAL>',
  '          <BALAMT>4310.24</BALAMT>',
  '          <DTASOF>20260331</DTASOF>',
  '        </LEDGERBAL>',
  '      </STMTRS>',
  '    </STMTTRNRS>',
  '  </BANKMSGSRSV1>',
  '</OFX>',
);
writeFileSync(join(dir, 'statement.ofx'), encode(`${lines.join('\n')}\n`, 'UTF-8'));

writeExpected(
  dir,
  {
    format: 'OFX',
    encoding: 'UTF-8',
    delimiter: null,
    sheet: null,
    headerRow: 0,
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
