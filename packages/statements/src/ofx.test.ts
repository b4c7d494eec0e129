import { describe, expect, it } from 'vitest';
import { encode, pipeline } from './files.fixture.js';

const SGML = `OFXHEADER:100
DATA:OFXSGML
VERSION:102
SECURITY:NONE
ENCODING:USASCII
CHARSET:1252
COMPRESSION:NONE
OLDFILEUID:NONE
NEWFILEUID:NONE

<OFX>
<SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20260601120000<LANGUAGE>ENG</SONRS></SIGNONMSGSRSV1>
<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS>
<STMTRS><CURDEF>USD<BANKACCTFROM><BANKID>121000248<ACCTID>****6789<ACCTTYPE>CHECKING</BANKACCTFROM>
<BANKTRANLIST><DTSTART>20260501<DTEND>20260531
<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260514120000.000[-5:EST]<TRNAMT>-4.50<FITID>2026051401<NAME>STARBUCKS #123<MEMO>Coffee &amp; cake
</STMTTRN>
<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>20260515<TRNAMT>3000.00<FITID>2026051501<NAME>ACME PAYROLL
</STMTTRN>
<STMTTRN><TRNTYPE>POS<DTPOSTED>20260516<TRNAMT>-12.00<FITID>2026051601<NAME>Caf\xe9 Paris
</BANKTRANLIST><LEDGERBAL><BALAMT>2983.50<DTASOF>20260531</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1>
</OFX>
`;

const XML = `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<?OFX OFXHEADER="200" VERSION="220" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>
<OFX>
  <CREDITCARDMSGSRSV1><CCSTMTTRNRS><TRNUID>1</TRNUID>
    <CCSTMTRS><CURDEF>KRW</CURDEF><CCACCTFROM><ACCTID>1234********5678</ACCTID></CCACCTFROM>
      <BANKTRANLIST><DTSTART>20260501000000[+9:KST]</DTSTART><DTEND>20260531235959[+9:KST]</DTEND>
        <STMTTRN><TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>20260514003000[+9:KST]</DTPOSTED><TRNAMT>-5600</TRNAMT><FITID>A1</FITID><NAME>스타벅스</NAME></STMTTRN>
        <STMTTRN><TRNTYPE>CREDIT</TRNTYPE><DTPOSTED>20260515</DTPOSTED><TRNAMT>5600</TRNAMT><FITID>A2</FITID><NAME>스타벅스</NAME><MEMO>취소</MEMO></STMTTRN>
      </BANKTRANLIST>
    </CCSTMTRS>
  </CCSTMTTRNRS></CREDITCARDMSGSRSV1>
</OFX>`;

describe('readStatement: OFX', () => {
  it('reads OFX 1.x SGML (unclosed leaves, Windows-1252 declared) in its own currency', async () => {
    const bytes = Uint8Array.from(SGML, (c) => c.charCodeAt(0));
    // The caller's default (KRW) gives way to the currency the file names (CURDEF).
    const { table, proposal, lines } = await pipeline(bytes, 'statement.qfx', { defaultCurrency: 'KRW' });
    expect(table).toMatchObject({
      format: 'OFX',
      encoding: 'WINDOWS-1252',
      headerRow: 0,
      header: ['DTPOSTED', 'TRNAMT', 'NAME', 'MEMO', 'FITID', 'TRNTYPE'],
      currency: 'USD',
      account: '****6789',
      accountType: 'BANK',
      period: { from: '2026-05-01', to: '2026-05-31' },
      rowNumbers: [16, 18, 20],
    });
    expect(table.transactions![0]).toEqual({
      fitId: '2026051401',
      type: 'DEBIT',
      posted: '2026-05-14',
      time: '12:00:00',
      amount: '-4.50',
      name: 'STARBUCKS #123',
      memo: 'Coffee & cake',
    });
    expect(proposal).toMatchObject({
      mapping: { date: 0, amount: 1, sign: 'NEGATIVE_IS_EXPENSE', description: 2, transactionId: 4 },
      dateOrder: 'YMD',
    });
    expect(lines.map((l) => [l.date, l.type, l.currency, l.originalAmount, l.description, l.transactionId])).toEqual([
      ['2026-05-14', 'EXPENSE', 'USD', '4.50', 'STARBUCKS #123', '2026051401'],
      ['2026-05-15', 'INCOME', 'USD', '3000.00', 'ACME PAYROLL', '2026051501'],
      ['2026-05-16', 'EXPENSE', 'USD', '12.00', 'Café Paris', '2026051601'],
    ]);
  });

  it('reads OFX 2.x XML of a card: the date as written (no zone shift), a credit as a cancellation', async () => {
    const { table, lines } = await pipeline(encode(XML, 'utf8'), 'card.ofx');
    expect(table).toMatchObject({
      encoding: 'UTF-8',
      currency: 'KRW',
      accountType: 'CARD',
      account: '1234********5678',
    });
    expect(lines.map((l) => [l.date, l.time, l.type, l.amount, l.cancellation, l.transactionId])).toEqual([
      ['2026-05-14', '00:30:00', 'EXPENSE', 5600, false, 'A1'],
      ['2026-05-15', null, 'EXPENSE', 5600, true, 'A2'],
    ]);
  });

  it('EMPTY for a statement without transactions, NO_HEADER without <OFX>', async () => {
    await expect(
      pipeline(encode('OFXHEADER:100\n\n<OFX><BANKMSGSRSV1></BANKMSGSRSV1></OFX>', 'utf8'), 'a.ofx'),
    ).rejects.toMatchObject({
      code: 'EMPTY',
    });
    await expect(pipeline(encode('OFXHEADER:100\nDATA:OFXSGML\n', 'utf8'), 'a.ofx')).rejects.toMatchObject({
      code: 'NO_HEADER',
    });
  });

  it('TOO_MANY_ROWS past maxRows', async () => {
    const many = `<OFX>${'<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260514<TRNAMT>-1<FITID>x\n'.repeat(11)}</OFX>`;
    await expect(pipeline(encode(many, 'utf8'), 'a.ofx', {}, { maxRows: 10 })).rejects.toMatchObject({
      code: 'TOO_MANY_ROWS',
    });
  });
});
