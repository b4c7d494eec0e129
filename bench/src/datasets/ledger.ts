import type postgres from 'postgres';
import type { Dataset } from '../rows/types.js';
import { benchPasswordHash } from './members.js';

/**
 * Ledgers for the entry, net-worth and sync rows (decision V6). Two shapes:
 * - `ledger` grows the service: `size` entries in the table, of which the bench member holds a fixed
 *   household's ledger ({@link MEMBER_ENTRIES}) and everyone else the rest. Its rows must stay flat from
 *   10,000 to 1,000,000: nothing may scan other members' rows.
 * - `ledger-heavy` grows one member: the bench member holds all `size` entries (the issue's 200,000-entry
 *   member). Its rows show what depends on the member's own size (the memo search, a deep cursor page).
 */

export const LEDGER_MEMBER_EMAIL = 'bench-ledger@nestegg.test';
export const HEAVY_MEMBER_EMAIL = 'bench-heavy@nestegg.test';
/** Ten years of a household writing about one and a half entries a day. */
export const MEMBER_ENTRIES = 5_000;
/** Entries of each other member of the `ledger` dataset. */
const OTHER_MEMBER_ENTRIES = 2_000;
const BATCH = 100_000;
/** The seeded ledgers end here, so every run sees the same dates. */
export const LAST_ENTRY_DATE = '2026-10-31';

/** A term found in about one entry in a hundred, and one in a few dozen of a million. */
export const COMMON_TERM = '스타벅스';
export const RARE_TERM = '르꼬르동';

const MERCHANTS = [
  '스타벅스 강남점',
  'GS25 역삼점',
  '쿠팡',
  '배달의민족',
  '카카오T 택시',
  '이마트 성수점',
  'CU 삼성점',
  '올리브영 명동',
  '교보문고',
  'Netflix',
  '지하철 교통카드',
  '다이소',
  '세븐일레븐',
  '맥도날드',
  'SK주유소',
  '무신사',
  '네이버페이',
  '파리바게뜨',
  'KT 통신요금',
  '관리비',
];

/** Expense categories (top level with sub-categories) and income categories of every seeded member. */
const EXPENSE_TREE: Record<string, string[]> = {
  식비: ['카페', '외식', '배달'],
  교통: ['택시', '대중교통'],
  쇼핑: [],
  생활: ['통신', '관리비'],
};
const INCOME_CATEGORIES = ['급여', '부수입'];
const TAGS = ['여행', '회사', '가족'];
const WALLETS: { name: string; type: string }[] = [
  { name: '월급통장', type: 'BANK' },
  { name: '신용카드', type: 'CARD' },
  { name: '현금', type: 'CASH' },
];

async function memberIdOf(sql: postgres.Sql, email: string): Promise<number | null> {
  const [row] = await sql<{ id: number }[]>`select id from member where email = ${email}`;
  return row?.id ?? null;
}

/** A PREMIUM member (tags are premium) with wallets, a category tree and tags. */
async function createLedgerMember(sql: postgres.Sql, email: string): Promise<number> {
  const hash = await benchPasswordHash();
  const [created] = await sql<{ id: number }[]>`
    insert into member (email, email_verified, password_hash, display_name, provider, plan)
    values (${email}, true, ${hash}, 'Ledger member', 'LOCAL', 'PREMIUM') returning id`;
  const memberId = created!.id;
  await seedStructure(sql, [memberId]);
  return memberId;
}

/** Wallets, categories and tags of each member, set-based (one statement per table). */
async function seedStructure(sql: postgres.Sql, memberIds: number[]): Promise<void> {
  const wallets = WALLETS.map((wallet, order) => ({ ...wallet, sort_order: order }));
  await sql`
    insert into account (member_id, name, type, sort_order, opening_balance)
    select m, w.name, w.type::account_type, w.sort_order, 1000000
    from unnest(${sql.array(memberIds)}::int[]) as m,
      jsonb_to_recordset(${sql.json(wallets)}) as w(name text, type text, sort_order int)`;
  const tops = [
    ...Object.keys(EXPENSE_TREE).map((name) => ({ name, type: 'EXPENSE' })),
    ...INCOME_CATEGORIES.map((name) => ({ name, type: 'INCOME' })),
  ].map((top, order) => ({ ...top, sort_order: order }));
  await sql`
    insert into category (member_id, name, type, sort_order)
    select m, t.name, t.type::ledger_type, t.sort_order
    from unnest(${sql.array(memberIds)}::int[]) as m,
      jsonb_to_recordset(${sql.json(tops)}) as t(name text, type text, sort_order int)`;
  const subs = Object.entries(EXPENSE_TREE).flatMap(([parent, names]) =>
    names.map((name, order) => ({ parent, name, sort_order: order })),
  );
  await sql`
    insert into category (member_id, name, type, parent_id, sort_order)
    select p.member_id, s.name, 'EXPENSE', p.id, s.sort_order
    from jsonb_to_recordset(${sql.json(subs)}) as s(parent text, name text, sort_order int)
    join category p on p.name = s.parent and p.type = 'EXPENSE'
      and p.member_id = any(${sql.array(memberIds)}::int[])`;
  await sql`
    insert into tag (member_id, name, sort_order)
    select m, t.name, t.ordinality::int
    from unnest(${sql.array(memberIds)}::int[]) as m, unnest(${sql.array(TAGS)}::text[]) with ordinality as t(name)`;
}

/**
 * `count` entries of one member, dated back from LAST_ENTRY_DATE about `perDay` a day: every tenth an
 * income, memos from a merchant list (one rare memo per 20,000 entries), sub-categories, the three wallets,
 * every seventh entry tagged, one pending in fifty.
 */
async function insertEntries(sql: postgres.Sql, memberId: number, from: number, to: number, perDay: number) {
  const expenseCategories = Object.entries(EXPENSE_TREE).flatMap(([top, subs]) => (subs.length ? subs : [top]));
  await sql`
    insert into account_entry (member_id, account_id, type, amount, entry_date, memo, category, pending)
    select ${memberId},
      (select id from account a where a.member_id = ${memberId} order by a.sort_order offset (g % 3) limit 1),
      (case when g % 10 = 0 then 'INCOME' else 'EXPENSE' end)::ledger_type,
      case when g % 10 = 0 then 2500000 + (g % 7) * 1000 else 1000 + (g * 7919) % 90000 end,
      ${LAST_ENTRY_DATE}::date - floor(g / ${perDay}::numeric)::int,
      case when g % 20000 = 7 then ${`${RARE_TERM} 베이커리`}
        else (${sql.array(MERCHANTS)}::text[])[1 + (g * 31) % ${MERCHANTS.length}] || ' ' || (g % 13) end,
      case when g % 10 = 0 then (${sql.array(INCOME_CATEGORIES)}::text[])[1 + g % 2]
        else (${sql.array(expenseCategories)}::text[])[1 + g % ${expenseCategories.length}] end,
      g % 50 = 0
    from generate_series(${from}::int, ${to}::int) as g`;
  await sql`
    insert into entry_tag (member_id, entry_id, tag_id)
    select e.member_id, e.id, (select id from tag t where t.member_id = e.member_id order by t.id offset (e.id % 3) limit 1)
    from account_entry e
    where e.member_id = ${memberId} and e.id % 7 = 0
      and not exists (select 1 from entry_tag x where x.member_id = e.member_id and x.entry_id = e.id)`;
}

async function entryCount(sql: postgres.Sql, memberId?: number): Promise<number> {
  const [row] = memberId
    ? await sql<{ count: number }[]>`select count(*)::int as count from account_entry where member_id = ${memberId}`
    : await sql<{ count: number }[]>`select count(*)::int as count from account_entry`;
  return row?.count ?? 0;
}

async function growMember(sql: postgres.Sql, memberId: number, target: number, perDay: number) {
  for (let held = await entryCount(sql, memberId); held < target; held = await entryCount(sql, memberId)) {
    await insertEntries(sql, memberId, held + 1, Math.min(target, held + BATCH), perDay);
  }
}

/** Other members with OTHER_MEMBER_ENTRIES entries each, until the table holds `size` entries. */
async function growOthers(sql: postgres.Sql, size: number) {
  let total = await entryCount(sql);
  const hash = await benchPasswordHash();
  while (total < size) {
    const members = Math.min(Math.ceil((size - total) / OTHER_MEMBER_ENTRIES), BATCH / OTHER_MEMBER_ENTRIES);
    const created = await sql<{ id: number }[]>`
      insert into member (email, email_verified, password_hash, display_name, provider, plan)
      select 'ledger-' || gen_random_uuid() || '@bench.nestegg.test', true, ${hash}, 'Ledger ' || g, 'LOCAL', 'FREE'
      from generate_series(1, ${members}::int) as g returning id`;
    const ids = created.map((row) => row.id);
    await seedStructure(sql, ids);
    for (const id of ids) await insertEntries(sql, id, 1, Math.min(OTHER_MEMBER_ENTRIES, size - total), 2);
    total = await entryCount(sql);
  }
}

async function settle(sql: postgres.Sql) {
  await sql.unsafe('vacuum analyze account_entry, entry_tag, account, category, tag, ledger_change');
}

export const ledgerDataset: Dataset = {
  name: 'ledger',
  unit: 'entries',
  async seed(sql, size) {
    const memberId =
      (await memberIdOf(sql, LEDGER_MEMBER_EMAIL)) ?? (await createLedgerMember(sql, LEDGER_MEMBER_EMAIL));
    await growMember(sql, memberId, Math.min(MEMBER_ENTRIES, size), 1.5);
    await growOthers(sql, size);
    await settle(sql);
  },
};

export const heavyLedgerDataset: Dataset = {
  name: 'ledger-heavy',
  unit: 'entries of one member',
  async seed(sql, size) {
    const memberId = (await memberIdOf(sql, HEAVY_MEMBER_EMAIL)) ?? (await createLedgerMember(sql, HEAVY_MEMBER_EMAIL));
    await growMember(sql, memberId, size, 20);
    await settle(sql);
  },
};
