/**
 * Measures read + propose + normalise of a 10,000-row CSV (CP949) and a 10,000-row XLSX, cold (first call in the
 * process) and warm (median of 5). Not a test: run it by hand,
 * `pnpm --filter @nestegg/api exec tsx --conditions=@nestegg/source ../../packages/statements/scripts/speed.ts`.
 */
import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import { normalizeRows, proposeMapping, readStatement } from '../src/index.js';

const ROWS = 10_000;
const merchants = ['스타벅스 강남점', '쿠팡', 'GS25 역삼점', '배달의민족', 'AMAZON.COM', '이마트 성수점'];
const row = (i: number) => {
  const day = String((i % 28) + 1).padStart(2, '0');
  return [
    `2026.05.${day} 12:${String(i % 60).padStart(2, '0')}`,
    '1234-****-****-5678',
    merchants[i % 6]!,
    (1000 + i * 7).toLocaleString('en-US'),
    i % 5 ? '일시불' : '3개월',
    String(30_000_000 + i),
  ];
};
const header = ['이용일시', '이용카드', '가맹점명', '이용금액', '할부', '승인번호'];

const csv = iconv.encode(
  [
    '신한카드 이용내역',
    '조회기간 : 2026.05.01 ~ 2026.05.31',
    header.join(','),
    ...Array.from({ length: ROWS }, (_, i) =>
      row(i)
        .map((c) => `"${c}"`)
        .join(','),
    ),
    '합계,,,,,',
  ].join('\r\n'),
  'cp949',
);
const wb = new ExcelJS.Workbook();
const ws = wb.addWorksheet('이용내역');
ws.addRow(['신한카드 이용내역']);
ws.addRow(header);
for (let i = 0; i < ROWS; i++) {
  const r = row(i);
  ws.addRow([new Date(Date.UTC(2026, 4, (i % 28) + 1, 12, i % 60)), r[1], r[2], 1000 + i * 7, r[4], r[5]]);
}
const xlsx = new Uint8Array(await wb.xlsx.writeBuffer());

async function run(bytes: Uint8Array, name: string): Promise<number> {
  const started = performance.now();
  const table = await readStatement(bytes, name);
  const proposal = proposeMapping(table);
  const lines = normalizeRows(table, proposal.mapping, {
    dateOrder: proposal.dateOrder ?? 'YMD',
    defaultCurrency: 'KRW',
  });
  const ms = performance.now() - started;
  if (lines.filter((l) => l.kind === 'TRANSACTION').length !== ROWS)
    throw new Error(`${name}: not ${ROWS} transactions`);
  return ms;
}

for (const [bytes, name] of [
  [csv, 'statement.csv'],
  [xlsx, 'statement.xlsx'],
] as const) {
  const cold = await run(bytes, name);
  const warm = [];
  for (let i = 0; i < 5; i++) warm.push(await run(bytes, name));
  warm.sort((a, b) => a - b);
  console.log(
    `${name}: ${(bytes.length / 1024).toFixed(0)} KiB, ${ROWS} rows: cold ${cold.toFixed(0)} ms, warm median ${warm[2]!.toFixed(0)} ms`,
  );
}
