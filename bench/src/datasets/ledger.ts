import type postgres from 'postgres';
import { API_TIME_ZONE, addMonths, dateIn, type MonthSpan, monthOf } from '../baseline/domain.js';
import type { Dataset } from '../rows/types.js';
import { benchPasswordHash } from './members.js';

/**
 * Ledgers for the entry, net-worth, sync, statistics and budget rows (decision V6). Two shapes:
 * - `ledger` grows the service: `size` entries in the table, of which the bench member holds a fixed
 *   household's ledger ({@link MEMBER_ENTRIES}, plus a pension valued by hand, a mortgage, a month of
 *   budgets) and everyone else the rest. Its rows must stay flat from 10,000 to 1,000,000: nothing may scan
 *   other members' rows.
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
/**
 * The seeded ledgers end on the day they are seeded (UTC, the api's default APP_TIMEZONE): the trends and
 * "this month" of the statistics are counted back from today, and must find a household's recent entries.
 */
export const LAST_ENTRY_DATE = dateIn(API_TIME_ZONE, new Date());

/** One memo in 20,000 of each ledger: one entry of the bench member's, one per ten other members. */
export const RARE_TERM = '르꼬르동';
/** One memo in twenty. */
export const COMMON_TERM = '스타벅스';

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
const EXPENSE_CATEGORIES = Object.entries(EXPENSE_TREE).flatMap(([top, subs]) => (subs.length ? subs : [top]));
const INCOME_CATEGORIES = ['급여', '부수입'];
const TAGS = ['여행', '회사', '가족'];
/** The wallets entries are written to (the first three in every member's order). */
const WALLETS: { name: string; type: string }[] = [
  { name: '월급통장', type: 'BANK' },
  { name: '신용카드', type: 'CARD' },
  { name: '현금', type: 'CASH' },
];

/** The bench member's pension, valued by hand once a month over the last {@link PENSION_MONTHS} months. */
const PENSION = { name: '국민연금', type: 'PENSION', firstValue: 12_000_000, monthlyRise: 180_000 };
const PENSION_MONTHS = 36;
/** The bench member's mortgage, three years into thirty: its value follows the amortization schedule. */
const MORTGAGE = {
  name: '주택담보대출',
  type: 'LOAN',
  amount: 300_000_000,
  rate: '4.2500',
  method: 'EQUAL_PAYMENT',
  months: 360,
  yearsAgo: 3,
};
/** The bench member's budgets of one month: every expense category but one, parents and subs alike. */
export const BUDGET_CATEGORIES = ['식비', '카페', '외식', '배달', '교통', '택시', '쇼핑', '생활', '통신', '관리비'];

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

/** Entries `from`..`to` of one member's ledger (1 = the newest), and how many a day it holds (a type: JSON). */
type EntrySpan = {
  memberId: number;
  from: number;
  to: number;
  perDay: number;
  /** Moves the rare memo: entry 7 (then every `rareEvery`th) of a ledger shifted by a multiple of `rareEvery`. */
  rareShift: number;
  /** How often the rare memo comes back: RARE_EVERY in the service, never within one growing member's ledger. */
  rareEvery: number;
};

/** The rare memo's period among the service's other members: once per 20,000 entries. */
const RARE_EVERY = 20_000;
/** Past any ledger's length: one growing member's ledger holds the rare memo once (entry 7) at every size. */
const RARE_ONCE = 2_147_483_647;

/**
 * The entries of the spans in one statement, dated back from LAST_ENTRY_DATE about `perDay` a day: every
 * tenth an income, memos from a merchant list (the rare memo once per 20,000 entries of the service, once in a growing member's ledger),
 * sub-categories, the three first wallets, one pending in fifty; then every seventh entry is tagged.
 */
async function insertEntries(sql: postgres.Sql, spans: EntrySpan[]): Promise<void> {
  const rare = `${RARE_TERM} 베이커리`;
  await sql`
    with span as (
      select * from jsonb_to_recordset(${sql.json(spans)})
        as s("memberId" int, "from" int, "to" int, "perDay" numeric, "rareShift" int, "rareEvery" int)
    ), wallets as (
      select a.member_id, array_agg(a.id order by a.sort_order) as ids
        from account a join span s on a.member_id = s."memberId"
       where a.sort_order < ${WALLETS.length}
       group by a.member_id
    )
    insert into account_entry (member_id, account_id, type, amount, entry_date, memo, category, pending)
    select s."memberId",
      w.ids[1 + g % ${WALLETS.length}],
      (case when g % 10 = 0 then 'INCOME' else 'EXPENSE' end)::ledger_type,
      case when g % 10 = 0 then 2500000 + (g % 7) * 1000 else 1000 + (g * 7919) % 90000 end,
      ${LAST_ENTRY_DATE}::date - floor(g / s."perDay")::int,
      case when (g + s."rareShift") % s."rareEvery" = 7 then ${rare}
        else (${sql.array(MERCHANTS)}::text[])[1 + (g * 31) % ${MERCHANTS.length}] || ' ' || (g % 13) end,
      case when g % 10 = 0 then (${sql.array(INCOME_CATEGORIES)}::text[])[1 + g % 2]
        else (${sql.array(EXPENSE_CATEGORIES)}::text[])[1 + g % ${EXPENSE_CATEGORIES.length}] end,
      g % 50 = 0
    from span s join wallets w on w.member_id = s."memberId", generate_series(s."from", s."to") as g`;
  const memberIds = spans.map((span) => span.memberId);
  await sql`
    with tags as (
      select member_id, array_agg(id order by id) as ids from tag
       where member_id = any(${sql.array(memberIds)}::int[]) group by member_id
    )
    insert into entry_tag (member_id, entry_id, tag_id)
    select e.member_id, e.id, t.ids[1 + e.id % 3]
    from account_entry e join tags t on t.member_id = e.member_id
    where e.member_id = any(${sql.array(memberIds)}::int[]) and e.id % 7 = 0
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
    await insertEntries(sql, [
      { memberId, from: held + 1, to: Math.min(target, held + BATCH), perDay, rareShift: 0, rareEvery: RARE_ONCE },
    ]);
  }
}

/** Other members with OTHER_MEMBER_ENTRIES entries each (the last one fewer), until the table holds `size` entries. */
async function growOthers(sql: postgres.Sql, size: number) {
  const hash = await benchPasswordHash();
  for (let total = await entryCount(sql); total < size; total = await entryCount(sql)) {
    const wanted = Math.min(size - total, BATCH);
    const created = await sql<{ id: number }[]>`
      insert into member (email, email_verified, password_hash, display_name, provider, plan)
      select 'ledger-' || gen_random_uuid() || '@bench.nestegg.test', true, ${hash}, 'Ledger ' || g, 'LOCAL', 'FREE'
      from generate_series(1, ${Math.ceil(wanted / OTHER_MEMBER_ENTRIES)}::int) as g returning id`;
    const memberIds = created.map((row) => row.id);
    await seedStructure(sql, memberIds);
    const spans = memberIds.map((memberId, index) => ({
      memberId,
      from: 1,
      to: Math.min(OTHER_MEMBER_ENTRIES, wanted - index * OTHER_MEMBER_ENTRIES),
      perDay: 2,
      // Entry 7 of every tenth member.
      rareShift: (memberId % 10) * OTHER_MEMBER_ENTRIES,
      rareEvery: RARE_EVERY,
    }));
    await insertEntries(sql, spans);
  }
}

/** The month `monthsBack` months before the month of the last entry. */
function monthBeforeLastEntry(monthsBack: number): MonthSpan {
  return monthOf(addMonths(LAST_ENTRY_DATE, -monthsBack));
}

/** The month the bench member's budgets are in: the last complete month of the ledger, first to last day. */
export function budgetMonth(): MonthSpan {
  return monthBeforeLastEntry(1);
}

/**
 * What makes the bench member's net worth and budgets a household's: the wallets exist since the first
 * entry (their opening balances count all along the trend), a pension valued by hand each month, a
 * mortgage on its schedule, and a month of budgets with the expected income. Seeded after the entries,
 * so they are also the newest changes of the delta sync.
 */
async function seedHousehold(sql: postgres.Sql, memberId: number): Promise<void> {
  await sql`
    update account set created_at = (select min(entry_date) from account_entry where member_id = ${memberId})
     where member_id = ${memberId}`;
  const firstValueDay = monthBeforeLastEntry(PENSION_MONTHS - 1).first;
  const currentValue = PENSION.firstValue + (PENSION_MONTHS - 1) * PENSION.monthlyRise;
  await sql`
    with pension as (
      insert into account (member_id, name, type, sort_order, manual_valuation, current_value, created_at)
      values (${memberId}, ${PENSION.name}, ${PENSION.type}, ${WALLETS.length}, true, ${currentValue},
        ${firstValueDay}::date)
      returning id
    )
    insert into wallet_value_history (member_id, account_id, day, value)
    select ${memberId}, pension.id, (${firstValueDay}::date + make_interval(months => m))::date,
      ${PENSION.firstValue} + m * ${PENSION.monthlyRise}
    from pension, generate_series(0, ${PENSION_MONTHS - 1}) as m`;
  const loanStart = monthBeforeLastEntry(MORTGAGE.yearsAgo * 12).first;
  // The mortgage's terms as the api records them (L24): in force from the day it was entered.
  await sql`
    with mortgage as (
      insert into account (member_id, name, type, sort_order, loan_amount, loan_rate, loan_method, loan_months,
        loan_start, created_at)
      values (${memberId}, ${MORTGAGE.name}, ${MORTGAGE.type}, ${WALLETS.length + 1}, ${MORTGAGE.amount},
        ${MORTGAGE.rate}, ${MORTGAGE.method}, ${MORTGAGE.months}, ${loanStart}::date, ${loanStart}::date)
      returning id, loan_amount, loan_rate, loan_method, loan_months, loan_start
    )
    insert into wallet_loan_history (member_id, account_id, valid_from, loan_amount, loan_rate, loan_method,
      loan_months, loan_start)
    select ${memberId}, id, loan_start, loan_amount, loan_rate, loan_method, loan_months, loan_start from mortgage`;
  const { year, month } = budgetMonth();
  await sql`
    insert into budget (member_id, category, year, month, amount)
    select ${memberId}, c.name, ${year}, ${month}, 100000 * c.ordinality
    from unnest(${sql.array(BUDGET_CATEGORIES)}::text[]) with ordinality as c(name)`;
  await sql`insert into budget_income (member_id, year, month, amount) values (${memberId}, ${year}, ${month}, 4500000)`;
}

async function settle(sql: postgres.Sql) {
  await sql.unsafe(
    'vacuum analyze account_entry, entry_tag, account, category, tag, ledger_change, member_change_counter, wallet_value_history, wallet_loan_history, budget, budget_income',
  );
}

async function ledgerMemberId(sql: postgres.Sql, email: string): Promise<number> {
  return (await memberIdOf(sql, email)) ?? (await createLedgerMember(sql, email));
}

export const ledgerDataset: Dataset = {
  name: 'ledger',
  unit: 'entries',
  async seed(sql, size) {
    const memberId = await ledgerMemberId(sql, LEDGER_MEMBER_EMAIL);
    const household = await sql`select 1 from account where member_id = ${memberId} and name = ${MORTGAGE.name}`;
    if (household.length === 0) {
      await growMember(sql, memberId, MEMBER_ENTRIES, 1.5);
      await seedHousehold(sql, memberId);
    }
    await growOthers(sql, size);
    await settle(sql);
  },
};

export const heavyLedgerDataset: Dataset = {
  name: 'ledger-heavy',
  unit: 'entries of one member',
  async seed(sql, size) {
    await growMember(sql, await ledgerMemberId(sql, HEAVY_MEMBER_EMAIL), size, 20);
    await settle(sql);
  },
};
