import ExcelJS from 'exceljs';
import type postgres from 'postgres';
import type { Dataset } from '../rows/types.js';
import { benchPasswordHash } from './members.js';

/**
 * The statement-import rows (issue 38): members who upload, commit and undo statement files, and a member whose
 * profile is read meanwhile. `size` is not grown in the database: it is the number of rows in the file the rows
 * upload. The files are generated here, deterministically: the same size gives the same bytes on every run.
 */

/** Members the preview and commit rows take turns with: an upload counts against its member's 10 a minute. */
export const UPLOADERS = 24;
export const uploaderEmail = (index: number) => `bench-import-${String(index).padStart(2, '0')}@nestegg.test`;
/** Members whose imports run in the background of the neighbour row, in turn. */
export const BACKGROUND_IMPORTERS = 3;
export const backgroundImporterEmail = (index: number) => `bench-import-background-${index}@nestegg.test`;
export const IMPORT_NEIGHBOUR_EMAIL = 'bench-import-neighbour@nestegg.test';

async function seedMembers(sql: postgres.Sql): Promise<void> {
  const hash = await benchPasswordHash();
  const members = [
    ...Array.from({ length: UPLOADERS }, (_, index) => [uploaderEmail(index), `Uploader ${index}`, 'PREMIUM']),
    ...Array.from({ length: BACKGROUND_IMPORTERS }, (_, index) => [
      backgroundImporterEmail(index),
      `Importer ${index}`,
      'PREMIUM',
    ]),
    [IMPORT_NEIGHBOUR_EMAIL, 'Neighbour member', 'FREE'],
  ];
  for (const [email, name, plan] of members) {
    await sql`
      insert into member (email, email_verified, password_hash, display_name, provider, plan)
      values (${email!}, true, ${hash}, ${name!}, 'LOCAL', ${plan!})
      on conflict do nothing`;
  }
  await sql.unsafe('vacuum analyze member');
}

/** Members who upload statements of `size` rows (POST /api/account/imports, then its commit). */
export const importsDataset: Dataset = { name: 'imports', unit: 'rows in the statement', seed: seedMembers };

/**
 * The same members in a database (and so a child process) of their own: its row runs 50,000-row imports in the
 * background, which must not run while `importsDataset`'s rows are measured.
 */
export const importNeighboursDataset: Dataset = {
  name: 'imports-neighbours',
  unit: 'rows per background import',
  seed: seedMembers,
};

// ---------------------------------------------------------------------------------------------------------
// The files
// ---------------------------------------------------------------------------------------------------------

const MERCHANTS = [
  '스타벅스',
  '이마트',
  '쿠팡',
  'GS25',
  'CU',
  '배달의민족',
  '롯데마트',
  '올리브영',
  '다이소',
  '메가박스',
  'CGV',
  '카카오T',
  '교보문고',
  '파리바게뜨',
  '투썸플레이스',
  '맥도날드',
  '버거킹',
  '홈플러스',
  '현대백화점',
  '신세계백화점',
  'SK에너지',
  'GS칼텍스',
  '무신사',
  '요기요',
  '이디야커피',
  '세븐일레븐',
  '코레일',
  '티머니',
  '네이버페이',
  '애플코리아',
];
const BRANCHES = [
  '',
  ' 역삼점',
  ' 강남점',
  ' 성수점',
  ' 선릉역점',
  ' 판교점',
  ' 홍대점',
  ' 잠실점',
  ' 여의도점',
  ' 서초점',
];
const CARD = '1234-****-****-5678';
/** Every 97th row cancels the purchase three rows before it (same approval number, amount and merchant). */
const CANCEL_EVERY = 97;
/** The statement's year: rows spread over it, oldest first. */
const FIRST_DAY = Date.UTC(2025, 11, 1);

interface StatementRow {
  date: Date;
  time: string;
  merchant: string;
  amount: number;
  months: number;
  approval: string;
  cancelled: boolean;
}

/** A deterministic pseudo-random sequence (a 32-bit LCG), so every run reads the same file. */
function sequence(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** `count` card transactions over a year: about 300 merchants, one row in 97 a cancellation, some instalments. */
function statementRows(count: number): StatementRow[] {
  const random = sequence(38);
  const rows: StatementRow[] = [];
  for (let index = 0; index < count; index += 1) {
    const date = new Date(FIRST_DAY + Math.floor((index * 365) / count) * 86_400_000);
    const seconds = Math.floor(random() * 86_400);
    const time = [seconds / 3600, (seconds / 60) % 60, seconds % 60]
      .map((part) => String(Math.floor(part)).padStart(2, '0'))
      .join(':');
    const purchase = index >= 3 && index % CANCEL_EVERY === 0 ? rows[index - 3]! : null;
    if (purchase && !purchase.cancelled) {
      rows.push({ ...purchase, date, time, cancelled: true });
      continue;
    }
    const merchant = `${MERCHANTS[Math.floor(random() * MERCHANTS.length)]}${BRANCHES[Math.floor(random() * BRANCHES.length)]}`;
    const amount = 1_000 + Math.floor(random() * 2_000) * 100;
    rows.push({
      date,
      time,
      merchant,
      amount,
      months: index % 40 === 0 ? 3 : 0,
      approval: String(30_000_000 + index),
      cancelled: false,
    });
  }
  return rows;
}

const isoDay = (date: Date) => date.toISOString().slice(0, 10);
const won = (amount: number) => amount.toLocaleString('en-US');
const quoted = (cell: string) => (/[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);

/**
 * A card company's approval history as CSV (the shape of 신한카드 이용내역 in packages/statements/corpus: a title,
 * the period, then 이용일자, 이용시간, 카드번호, 가맹점명, 이용금액 "4,500", 할부개월, 승인번호, 취소여부), in UTF-8 with a BOM.
 */
export function statementCsv(count: number): Buffer {
  const rows = statementRows(count);
  const lines = [
    '신한카드 이용내역',
    `조회기간 : ${isoDay(rows[0]!.date)} ~ ${isoDay(rows.at(-1)!.date)}`,
    '이용일자,이용시간,카드번호,가맹점명,이용금액,할부개월,승인번호,취소여부',
    ...rows.map((row) =>
      [
        isoDay(row.date),
        row.time,
        CARD,
        row.merchant,
        won(row.amount),
        row.months ? `${row.months}개월` : '일시불',
        row.approval,
        row.cancelled ? 'Y' : '',
      ]
        .map(quoted)
        .join(','),
    ),
  ];
  return Buffer.from(`\uFEFF${lines.join('\r\n')}\r\n`, 'utf8');
}

/**
 * A card company's usage history as XLSX, written by exceljs as the statements package's fixtures are (the shape
 * of 현대카드 이용내역 in packages/statements/corpus: a title block, then 이용일 "2026.03.02", 카드번호, 가맹점명,
 * 승인금액, 이용금액 as numbers, 부가세, 관계, 할부, 상태 정상/취소, 가맹점번호, 사업자등록번호).
 */
export async function statementXlsx(count: number): Promise<Buffer> {
  const rows = statementRows(count);
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'nestegg bench';
  workbook.created = new Date(FIRST_DAY);
  workbook.modified = new Date(FIRST_DAY);
  const sheet = workbook.addWorksheet('이용내역');
  const dotted = (date: Date) => isoDay(date).replaceAll('-', '.');
  sheet.addRows([
    ['현대카드 이용내역'],
    [`기준 일자 : ${dotted(rows[0]!.date)} ~ ${dotted(rows.at(-1)!.date)}`],
    ['회원 정보 : 김*서 (******)'],
    [],
    [
      '이용일',
      '카드번호',
      '가맹점명',
      '승인금액',
      '이용금액',
      '부가세',
      '관계',
      '할부',
      '상태',
      '가맹점번호',
      '사업자등록번호',
    ],
    ...rows.map((row, index) => [
      dotted(row.date),
      CARD,
      row.merchant,
      row.amount,
      row.amount,
      0,
      '본인',
      row.months ? String(row.months) : '',
      row.cancelled ? '취소' : '정상',
      `870-${String(100_000 + (index % 900)).padStart(6, '0')}`,
      '101-81-00001',
    ]),
  ]);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** A `multipart/form-data` body holding `bytes` as the `file` field, as a browser's form sends it. */
export function multipartFile(
  bytes: Buffer,
  fileName: string,
  type: string,
): { body: Buffer; headers: Record<string, string> } {
  const boundary = '----nestegg-bench-7d1f0c';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: ${type}\r\n\r\n`;
  return {
    body: Buffer.concat([Buffer.from(head), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

export const CSV_TYPE = 'text/csv';
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
