import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq, getTableName } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '../src/index';
import {
  account,
  accountEntry,
  appSetting,
  authSession,
  boardImage,
  boardTag,
  budget,
  budgetIncome,
  budgetOnetime,
  cardCancellation,
  category,
  comment,
  commentVote,
  createDb,
  type DbHandle,
  defaultCategory,
  entryTag,
  iapPurchase,
  idempotencyKey,
  investmentHolding,
  investmentTrade,
  ledgerChange,
  member,
  pointHistory,
  post,
  postVote,
  quickEntry,
  recurring,
  report,
  statementImport,
  statementImportProfile,
  statementImportRow,
  storeNotification,
  tag,
  tagCategory,
  walletLoanHistory,
  walletValueHistory,
} from '../src/index';
import { migrateDatabase, migrationsFolder } from '../src/migrate';

const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = `nestegg_db_test_${randomBytes(6).toString('hex')}`;
const testUrl = (() => {
  const u = new URL(adminUrl);
  u.pathname = `/${dbName}`;
  return u.toString();
})();

/** Every table of the drizzle schema: the migrations must create exactly these. */
const EXPECTED_TABLES = Object.values(schema as Record<string, unknown>)
  .filter((value): value is PgTable => value instanceof PgTable)
  .map((table) => getTableName(table))
  .sort();

let admin: postgres.Sql;
let handle: DbHandle;
/** What the first migration of the fresh database said. */
const freshLog: string[] = [];

/** SQLSTATE of a failed query (drizzle wraps the driver error in `cause`). */
async function sqlState(promise: PromiseLike<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code?: string; cause?: { code?: string } };
    return e.cause?.code ?? e.code ?? 'UNKNOWN';
  }
  return undefined;
}

const UNIQUE = '23505';
const CHECK = '23514';
const FOREIGN_KEY = '23503';

async function newMember(email: string) {
  const [row] = await handle.db
    .insert(member)
    .values({ email, displayName: email.split('@')[0]! })
    .returning();
  return row!;
}

beforeAll(async () => {
  admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${dbName}"`);
  await migrateDatabase(testUrl, { log: (message) => freshLog.push(message) });
  handle = createDb(testUrl, { max: 4 });
});

afterAll(async () => {
  await handle?.close();
  if (admin) {
    await admin.unsafe(`drop database if exists "${dbName}" with (force)`);
    await admin.end({ timeout: 5 });
  }
});

describe('migrations', () => {
  it('finds the migrations folder from the sources', () => {
    expect(migrationsFolder()).toMatch(/packages[/\\]db[/\\]migrations$/);
  });

  it('creates every table on an empty database', async () => {
    const rows = await handle.sql<{ table_name: string }[]>`
      select table_name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`;
    expect(rows.map((r) => r.table_name)).toEqual(EXPECTED_TABLES);
  });

  it('says it installs the job engine schema on a fresh database, and nothing about it once installed (decision F10)', async () => {
    const jobSchemaLines = (log: string[]) => log.filter((message) => message.includes('job engine'));
    expect(jobSchemaLines(freshLog)).toEqual([
      expect.stringMatching(/^installing the job engine schema "pgboss" \(version \d+\)$/),
    ]);
    const warmLog: string[] = [];
    await migrateDatabase(testUrl, { log: (message) => warmLog.push(message) });
    expect(jobSchemaLines(warmLog)).toEqual([]);
    expect(warmLog.at(-1)).toBe('migrations applied');
  });

  it('is idempotent when run again (and concurrently)', async () => {
    await Promise.all([migrateDatabase(testUrl), migrateDatabase(testUrl)]);
    const [row] = await handle.sql<{ n: number }[]>`select count(*)::int as n from drizzle.__drizzle_migrations`;
    expect(row!.n).toBeGreaterThan(0);
  });
});

describe('migration default_categories (decision A8)', () => {
  const seed = () => readFileSync(join(migrationsFolder(), '0023_default_categories.sql'), 'utf8');
  type Row = { name: string; type: string; parent: string | null };
  const tree = (sql: postgres.Sql | postgres.TransactionSql) => sql<Row[]>`
    select d.name, d.type, p.name as parent from default_category d left join default_category p on p.id = d.parent_id
     order by d.type, p.sort_order nulls first, d.sort_order`;

  it('gives a fresh installation a two-level income and expense set, with 카페 under 식비', async () => {
    const rows = await tree(handle.sql);
    const parents = new Map(rows.map((row) => [row.name, row.parent]));
    expect(parents.get('카페')).toBe('식비');
    expect(parents.get('월급')).toBe('급여');
    expect(new Set(rows.map((row) => row.type))).toEqual(new Set(['INCOME', 'EXPENSE']));
    const tops = new Set(rows.filter((row) => row.parent === null).map((row) => row.name));
    expect(rows.every((row) => row.parent === null || tops.has(row.parent))).toBe(true);
    expect(rows.length).toBeGreaterThan(40);
  });

  it('adds nothing to an installation that already has default categories', async () => {
    const before = await tree(handle.sql);
    await handle.sql.unsafe(seed());
    expect(await tree(handle.sql)).toEqual(before);
  });

  it('seeds an installation whose default categories are empty', async () => {
    const before = await tree(handle.sql);
    const rolledBack = new Error('rolled back');
    await expect(
      handle.sql.begin(async (sql) => {
        await sql`delete from default_category where parent_id is not null`;
        await sql`delete from default_category`;
        await sql.unsafe(seed());
        expect(await tree(sql)).toEqual(before);
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
  });
});

describe('constraints', () => {
  it('member: e-mail unique case-insensitively, points never below zero', async () => {
    const m = await newMember('points@example.com');
    expect(await sqlState(handle.db.insert(member).values({ email: 'POINTS@example.com', displayName: 'x' }))).toBe(
      UNIQUE,
    );
    expect(await sqlState(handle.db.update(member).set({ points: -1 }).where(eq(member.id, m.id)))).toBe(CHECK);
    // several provider accounts without an e-mail are fine
    await handle.db.insert(member).values([
      { displayName: 'a', provider: 'IDPTWO', idptwoId: 'sub-a' },
      { displayName: 'b', provider: 'IDPTWO', idptwoId: 'sub-b' },
    ]);
    expect(
      await sqlState(handle.db.insert(member).values({ displayName: 'c', provider: 'IDPTWO', idptwoId: 'sub-a' })),
    ).toBe(UNIQUE);
  });

  it('budget is unique per (member, category, year, month); budget_income per (member, year, month)', async () => {
    const m = await newMember('budget@example.com');
    await handle.db.insert(budget).values({ memberId: m.id, category: 'Food', year: 2025, month: 3, amount: 1000 });
    await handle.db.insert(budget).values({ memberId: m.id, category: 'Food', year: 2025, month: 4, amount: 1000 });
    expect(
      await sqlState(
        handle.db.insert(budget).values({ memberId: m.id, category: 'Food', year: 2025, month: 3, amount: 5 }),
      ),
    ).toBe(UNIQUE);
    await handle.db.insert(budgetIncome).values({ memberId: m.id, year: 2025, month: 3, amount: 3_000_000 });
    expect(
      await sqlState(handle.db.insert(budgetIncome).values({ memberId: m.id, year: 2025, month: 3, amount: 1 })),
    ).toBe(UNIQUE);
    expect(
      await sqlState(handle.db.insert(budgetIncome).values({ memberId: m.id, year: 2025, month: 13, amount: 1 })),
    ).toBe(CHECK);
  });

  it('one vote and one report per member per target', async () => {
    const author = await newMember('author@example.com');
    const voter = await newMember('voter@example.com');
    const [p] = await handle.db
      .insert(post)
      .values({ memberId: author.id, category: 'community', title: 't', body: 'b' })
      .returning();
    const [c] = await handle.db.insert(comment).values({ postId: p!.id, memberId: author.id, body: 'c' }).returning();

    await handle.db.insert(postVote).values({ memberId: voter.id, postId: p!.id, direction: 'UP' });
    expect(
      await sqlState(handle.db.insert(postVote).values({ memberId: voter.id, postId: p!.id, direction: 'DOWN' })),
    ).toBe(UNIQUE);
    await handle.db.insert(commentVote).values({ memberId: voter.id, commentId: c!.id, direction: 'DOWN' });
    expect(
      await sqlState(handle.db.insert(commentVote).values({ memberId: voter.id, commentId: c!.id, direction: 'UP' })),
    ).toBe(UNIQUE);

    await handle.db.insert(report).values({ memberId: voter.id, targetType: 'POST', targetId: p!.id, reason: 'spam' });
    expect(
      await sqlState(handle.db.insert(report).values({ memberId: voter.id, targetType: 'POST', targetId: p!.id })),
    ).toBe(UNIQUE);
    // the same id as a comment is another target
    await handle.db.insert(report).values({ memberId: voter.id, targetType: 'COMMENT', targetId: p!.id });
  });

  it('a purchase token is applied once', async () => {
    const m = await newMember('buyer@example.com');
    await handle.db
      .insert(iapPurchase)
      .values({ memberId: m.id, productId: 'premium_monthly', purchaseToken: 'tok-1' });
    expect(
      await sqlState(
        handle.db.insert(iapPurchase).values({ memberId: m.id, productId: 'premium_yearly', purchaseToken: 'tok-1' }),
      ),
    ).toBe(UNIQUE);
    await handle.db.insert(storeNotification).values({ messageId: 'msg-1', payload: { a: 1 } });
    expect(await sqlState(handle.db.insert(storeNotification).values({ messageId: 'msg-1', payload: {} }))).toBe(
      UNIQUE,
    );
  });

  it('account_entry: (member, notif_key) unique, NULL keys repeat; installment_months is NULL or 2..24', async () => {
    const m = await newMember('entries@example.com');
    const other = await newMember('entries2@example.com');
    const base = { memberId: m.id, type: 'EXPENSE' as const, amount: 12_000, entryDate: '2025-03-01' };
    await handle.db.insert(accountEntry).values([base, base, { ...base, notifKey: 'k1', pending: true }]);
    expect(await sqlState(handle.db.insert(accountEntry).values({ ...base, notifKey: 'k1' }))).toBe(UNIQUE);
    await handle.db.insert(accountEntry).values({ ...base, memberId: other.id, notifKey: 'k1' });

    await handle.db.insert(accountEntry).values([
      { ...base, installmentMonths: 2 },
      { ...base, installmentMonths: 24 },
    ]);
    expect(await sqlState(handle.db.insert(accountEntry).values({ ...base, installmentMonths: 1 }))).toBe(CHECK);
    expect(await sqlState(handle.db.insert(accountEntry).values({ ...base, installmentMonths: 25 }))).toBe(CHECK);
  });

  it('category: one name per (member, type) across both levels; a parent with children cannot be deleted', async () => {
    const m = await newMember('cats@example.com');
    const [food] = await handle.db
      .insert(category)
      .values({ memberId: m.id, name: 'Food', type: 'EXPENSE' })
      .returning();
    expect(await sqlState(handle.db.insert(category).values({ memberId: m.id, name: 'Food', type: 'EXPENSE' }))).toBe(
      UNIQUE,
    );
    await handle.db.insert(category).values({ memberId: m.id, name: 'Food', type: 'INCOME' });
    await handle.db.insert(category).values({ memberId: m.id, name: 'Lunch', type: 'EXPENSE', parentId: food!.id });
    expect(await sqlState(handle.db.delete(category).where(eq(category.id, food!.id)))).toBe(FOREIGN_KEY);
    // The same name under another parent (or at the top) would merge two categories in entries and budgets.
    const [home] = await handle.db
      .insert(category)
      .values({ memberId: m.id, name: 'Home', type: 'EXPENSE' })
      .returning();
    expect(
      await sqlState(
        handle.db.insert(category).values({ memberId: m.id, name: 'Lunch', type: 'EXPENSE', parentId: home!.id }),
      ),
    ).toBe(UNIQUE);

    const other = await newMember('cats2@example.com');
    expect(
      await sqlState(
        handle.db.insert(category).values({ memberId: other.id, name: 'X', type: 'EXPENSE', parentId: food!.id }),
      ),
    ).toBe(FOREIGN_KEY);

    const [top] = await handle.db.insert(defaultCategory).values({ name: 'Food', type: 'EXPENSE' }).returning();
    expect(await sqlState(handle.db.insert(defaultCategory).values({ name: 'Food', type: 'EXPENSE' }))).toBe(UNIQUE);
    await handle.db.insert(defaultCategory).values({ name: 'Lunch', type: 'EXPENSE', parentId: top!.id });
    expect(await sqlState(handle.db.delete(defaultCategory).where(eq(defaultCategory.id, top!.id)))).toBe(FOREIGN_KEY);
    expect(await sqlState(handle.db.insert(defaultCategory).values({ name: 'Lunch', type: 'EXPENSE' }))).toBe(UNIQUE);
  });

  it('entries: positive amounts, foreign fields all or none, instalments for expenses only, own wallets only', async () => {
    const m = await newMember('entry-rules@example.com');
    const other = await newMember('entry-rules-2@example.com');
    const [wallet] = await handle.db.insert(account).values({ memberId: m.id, name: 'W', type: 'CASH' }).returning();
    const base = { memberId: m.id, type: 'EXPENSE' as const, amount: 100, entryDate: '2025-03-01' };
    expect(await sqlState(handle.db.insert(accountEntry).values({ ...base, amount: 0 }))).toBe(CHECK);
    expect(await sqlState(handle.db.insert(accountEntry).values({ ...base, currency: 'USD' }))).toBe(CHECK);
    expect(
      await sqlState(handle.db.insert(accountEntry).values({ ...base, currency: 'USD', originalAmount: '1.5' })),
    ).toBe(CHECK);
    await handle.db
      .insert(accountEntry)
      .values({ ...base, currency: 'USD', originalAmount: '1.5', exchangeRate: '1350.25' });
    expect(
      await sqlState(handle.db.insert(accountEntry).values({ ...base, type: 'INCOME', installmentMonths: 3 })),
    ).toBe(CHECK);
    expect(
      await sqlState(handle.db.insert(accountEntry).values({ ...base, memberId: other.id, accountId: wallet!.id })),
    ).toBe(FOREIGN_KEY);
  });

  it("wallet balances follow the confirmed entries; a deleted wallet's entries stay, without it", async () => {
    const m = await newMember('balances@example.com');
    const [wallet] = await handle.db
      .insert(account)
      .values({ memberId: m.id, name: 'W', type: 'BANK', openingBalance: 1000 })
      .returning();
    const entry = (type: 'INCOME' | 'EXPENSE', amount: number, pending = false) => ({
      memberId: m.id,
      accountId: wallet!.id,
      type,
      amount,
      entryDate: '2025-03-01',
      pending,
    });
    await handle.db
      .insert(accountEntry)
      .values([entry('EXPENSE', 300), entry('INCOME', 50), entry('EXPENSE', 999, true)]);
    const balance = async () =>
      (await handle.db.select({ b: account.balance }).from(account).where(eq(account.id, wallet!.id)))[0]!.b;
    expect(await balance()).toBe(750);
    await handle.db.update(accountEntry).set({ pending: false }).where(eq(accountEntry.amount, 999));
    expect(await balance()).toBe(-249);
    await handle.db.update(account).set({ openingBalance: 2000 }).where(eq(account.id, wallet!.id));
    expect(await balance()).toBe(751);
    await handle.db.delete(accountEntry).where(eq(accountEntry.amount, 300));
    expect(await balance()).toBe(1051);
    await handle.db.delete(account).where(eq(account.id, wallet!.id));
    const left = await handle.db.select().from(accountEntry).where(eq(accountEntry.memberId, m.id));
    expect(left.map((row) => row.accountId)).toEqual([null, null]);
  });

  it('logs every ledger change with the member’s next number, tombstones included, in commit order', async () => {
    const m = await newMember('changes@example.com');
    const [t] = await handle.db.insert(tag).values({ memberId: m.id, name: 'x' }).returning();
    const [e] = await handle.db
      .insert(accountEntry)
      .values({ memberId: m.id, type: 'EXPENSE', amount: 1, entryDate: '2025-03-01' })
      .returning();
    await handle.db.insert(entryTag).values({ memberId: m.id, entryId: e!.id, tagId: t!.id });
    await handle.db.delete(tag).where(eq(tag.id, t!.id));
    const log = await handle.db.select().from(ledgerChange).where(eq(ledgerChange.memberId, m.id));
    const byEntity = Object.fromEntries(log.map((row) => [`${row.entity}:${row.entityId}`, row]));
    expect(byEntity[`tag:${t!.id}`]).toMatchObject({ deleted: true });
    expect(byEntity[`entry:${e!.id}`]).toMatchObject({ deleted: false });
    expect(log.map((row) => row.seq).sort((a, b) => a - b)).toEqual(
      [...new Set(log.map((row) => row.seq))].sort((a, b) => a - b),
    );
    // Concurrent writers of one member get distinct numbers, each transaction holding the counter to commit.
    await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        handle.db
          .insert(accountEntry)
          .values({ memberId: m.id, type: 'INCOME', amount: index + 1, entryDate: '2025-03-02' }),
      ),
    );
    const after = await handle.db
      .select({ seq: ledgerChange.seq })
      .from(ledgerChange)
      .where(eq(ledgerChange.memberId, m.id));
    expect(new Set(after.map((row) => row.seq)).size).toBe(after.length);
  });

  it('trade quantity must be positive and keeps 6 fractional digits', async () => {
    const m = await newMember('investor@example.com');
    const [h] = await handle.db.insert(investmentHolding).values({ memberId: m.id, name: 'ACME' }).returning();
    const [t] = await handle.db
      .insert(investmentTrade)
      .values({
        memberId: m.id,
        holdingId: h!.id,
        side: 'BUY',
        quantity: '1.123456',
        price: '1000',
        tradedAt: '2025-01-02',
      })
      .returning();
    expect(t!.quantity).toBe('1.123456');
    expect(
      await sqlState(
        handle.db.insert(investmentTrade).values({
          memberId: m.id,
          holdingId: h!.id,
          side: 'SELL',
          quantity: '0',
          price: '1',
          tradedAt: '2025-01-02',
        }),
      ),
    ).toBe(CHECK);
  });
});

/*
 * Scale-out rule (decision L5): every member-owned table carries `member_id` and its keys and indexes lead with
 * it, and a reference between two of them is composite on `member_id`, so the ledger can be distributed by member
 * (Citus co-locates on `member_id`; it wants the distribution column in every primary key and unique constraint).
 * Member-owned: every public table with a `member_id` column, minus the tables below.
 */
const NOT_MEMBER_OWNED: Record<string, string> = {
  auth_session: 'session store: looked up by token hash, not by member',
  point_history: 'community points, awarded with the board content and member.points; not ledger data',
  iap_purchase: 'billing: the store key (purchase_token) is global, and store notifications find it by token',
  post: 'board: shared content, read by everyone',
  comment: 'board: shared content, read by everyone',
  post_vote: "board: keyed by the voter, counted on another member's post",
  comment_vote: "board: keyed by the voter, counted on another member's comment",
  report: "board: keyed by the reporter, about another member's post or comment",
  board_image: 'board: shown to everyone in posts and comments',
  post_image: 'board: maintained by the triggers of post',
  comment_image: 'board: maintained by the triggers of comment',
};

/**
 * Plain (non-unique) indexes of member-owned tables that serve a retention sweep across all members by time.
 * A non-unique index never needs the distribution column (Citus keeps it per shard, and the sweep runs on
 * each shard); keys always do, so no key can be listed here.
 */
const CROSS_MEMBER_SWEEP_INDEXES: Record<string, string> = {
  ledger_change_tombstone_changed_idx: 'sync-tombstone-cleanup deletes tombstones past the retention, oldest first',
  idempotency_key_created_idx: 'idempotency-cleanup deletes keys older than 48 hours',
};

describe('scale-out rule (decision L5)', () => {
  async function memberOwnedTables(): Promise<string[]> {
    const rows = await handle.sql<{ table_name: string }[]>`
      select c.relname as table_name
        from pg_class c
        join pg_namespace n on n.oid = c.relnamespace
        join pg_attribute a on a.attrelid = c.oid and a.attname = 'member_id' and not a.attisdropped
       where n.nspname = 'public' and c.relkind in ('r', 'p')
       order by 1`;
    return rows.map((r) => r.table_name).filter((name) => !(name in NOT_MEMBER_OWNED));
  }

  it('knows the member-owned tables (every exemption names a table with member_id)', async () => {
    const withMemberId = await handle.sql<{ table_name: string }[]>`
      select table_name from information_schema.columns
       where table_schema = 'public' and column_name = 'member_id'`;
    const names = new Set(withMemberId.map((r) => r.table_name));
    for (const exempt of Object.keys(NOT_MEMBER_OWNED)) expect(names.has(exempt), exempt).toBe(true);
    expect(await memberOwnedTables()).toEqual(
      expect.arrayContaining([
        'account',
        'account_entry',
        'budget',
        'budget_income',
        'budget_onetime',
        'card_cancellation',
        'category',
        'entry_tag',
        'idempotency_key',
        'investment_holding',
        'investment_trade',
        'ledger_change',
        'member_change_counter',
        'merchant_category',
        'quick_entry',
        'recurring',
        'tag',
        'wallet_loan_history',
        'wallet_value_history',
      ]),
    );
  });

  it('every primary key, unique constraint and index of a member-owned table leads with member_id', async () => {
    const owned = await memberOwnedTables();
    // Keys (primary, unique, exclusion) from pg_constraint, every index (keys' included) from pg_index.
    const keys = await handle.sql<{ table_name: string; name: string; first_column: string | null }[]>`
      select con.conrelid::regclass::text as table_name, con.conname as name, a.attname as first_column
        from pg_constraint con
        left join pg_attribute a on a.attrelid = con.conrelid and a.attnum = con.conkey[1]
       where con.contype in ('p', 'u', 'x') and con.conrelid::regclass::text = any(${owned})`;
    const indexes = await handle.sql<
      { table_name: string; name: string; first_column: string | null; is_unique: boolean; definition: string }[]
    >`
      select t.relname as table_name, i.relname as name, a.attname as first_column, x.indisunique as is_unique,
             pg_get_indexdef(x.indexrelid) as definition
        from pg_index x
        join pg_class t on t.oid = x.indrelid
        join pg_class i on i.oid = x.indexrelid
        join pg_namespace n on n.oid = t.relnamespace
        left join pg_attribute a on a.attrelid = t.oid and a.attnum = x.indkey[0] and x.indkey[0] <> 0
       where n.nspname = 'public' and t.relname = any(${owned})`;
    expect(keys.filter((k) => k.table_name === 'account_entry').length).toBeGreaterThan(0);

    const keyOffenders = keys
      .filter((k) => k.first_column !== 'member_id')
      .map((k) => `${k.table_name}.${k.name} (first column ${k.first_column})`);
    expect(keyOffenders).toEqual([]);

    const indexOffenders = indexes
      .filter((index) => index.first_column !== 'member_id')
      .filter((index) => index.is_unique || !(index.name in CROSS_MEMBER_SWEEP_INDEXES))
      .map((index) => index.definition);
    expect(indexOffenders).toEqual([]);

    // The exemptions stay true: each names an existing plain index.
    const byName = new Map(indexes.map((index) => [index.name, index]));
    for (const name of Object.keys(CROSS_MEMBER_SWEEP_INDEXES)) {
      expect(byName.get(name)?.is_unique, name).toBe(false);
    }
  });

  it('a foreign key touching a member-owned table is composite on member_id (or is member_id → member.id)', async () => {
    const owned = await memberOwnedTables();
    const foreignKeys = await handle.sql<
      { name: string; source: string; target: string; source_first: string; target_first: string; columns: number }[]
    >`
      select con.conname as name, con.conrelid::regclass::text as source, con.confrelid::regclass::text as target,
             sa.attname as source_first, ta.attname as target_first, cardinality(con.conkey) as columns
        from pg_constraint con
        join pg_attribute sa on sa.attrelid = con.conrelid and sa.attnum = con.conkey[1]
        join pg_attribute ta on ta.attrelid = con.confrelid and ta.attnum = con.confkey[1]
       where con.contype = 'f' and con.connamespace = 'public'::regnamespace
         and (con.conrelid::regclass::text = any(${owned}) or con.confrelid::regclass::text = any(${owned}))`;
    const ownedSet = new Set(owned);
    const offenders = foreignKeys
      .filter((fk) => {
        const toMember = fk.target === 'member' && fk.columns === 1 && fk.source_first === 'member_id';
        const betweenOwned =
          ownedSet.has(fk.source) &&
          ownedSet.has(fk.target) &&
          fk.source_first === 'member_id' &&
          fk.target_first === 'member_id';
        return !(toMember || betweenOwned);
      })
      .map((fk) => `${fk.source}.${fk.name} → ${fk.target}`);
    expect(foreignKeys.length).toBeGreaterThan(owned.length);
    expect(offenders).toEqual([]);
  });
});

describe('migration local_currency_holdings (decision L39)', () => {
  const migration = () => readFileSync(join(migrationsFolder(), '0026_local_currency_holdings.sql'), 'utf8');

  it("makes a 'KRW' holding local when its trades are whole, and leaves one with fractional trades as it was", async () => {
    const rolledBack = new Error('rolled back');
    await expect(
      handle.sql.begin(async (sql) => {
        const [m] = await sql<{ id: number }[]>`
          insert into member (email, display_name) values ('krw@example.com', 'krw') returning id`;
        const holdings = await sql<{ id: number; name: string }[]>`
          insert into investment_holding (member_id, name, currency)
          values (${m!.id}, 'whole', 'KRW'), (${m!.id}, 'fractional', 'KRW'), (${m!.id}, 'dollars', 'USD')
          returning id, name`;
        const id = (name: string) => holdings.find((holding) => holding.name === name)!.id;
        await sql`
          insert into investment_trade (member_id, holding_id, side, quantity, price, fee, traded_at)
          values (${m!.id}, ${id('whole')}, 'BUY', 1, 71500, 0, '2026-01-01'),
                 (${m!.id}, ${id('fractional')}, 'BUY', 1, 71500.5, 0, '2026-01-01'),
                 (${m!.id}, ${id('dollars')}, 'BUY', 1, 10, 0, '2026-01-01')`;
        await sql.unsafe(migration());
        const rows = await sql<{ name: string; currency: string | null }[]>`
          select name, currency from investment_holding where member_id = ${m!.id} order by name`;
        expect(rows).toEqual([
          { name: 'dollars', currency: 'USD' },
          { name: 'fractional', currency: 'KRW' },
          { name: 'whole', currency: null },
        ]);
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
  });
});

describe('migration wallet_loan_history', () => {
  /** A copy of the migrations folder that stops before `tag`. */
  function migrationsBefore(tag: string): string {
    const full = migrationsFolder();
    const journal = JSON.parse(readFileSync(join(full, 'meta', '_journal.json'), 'utf8')) as {
      entries: { tag: string }[];
    };
    const index = journal.entries.findIndex((entry) => entry.tag === tag);
    expect(index).toBeGreaterThan(0);
    const entries = journal.entries.slice(0, index);
    const folder = mkdtempSync(join(tmpdir(), 'nestegg-migrations-'));
    mkdirSync(join(folder, 'meta'));
    writeFileSync(join(folder, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries }));
    for (const entry of entries) copyFileSync(join(full, `${entry.tag}.sql`), join(folder, `${entry.tag}.sql`));
    return folder;
  }

  it('backfills one row per LOAN wallet with complete terms, its current terms from its UTC creation day', async () => {
    const name = `${dbName}_loans`;
    const url = new URL(testUrl);
    url.pathname = `/${name}`;
    const before = migrationsBefore('0016_wallet_loan_history');
    await admin.unsafe(`create database "${name}"`);
    const old = createDb(url.toString(), { max: 1 });
    try {
      await migrateDatabase(url.toString(), { migrationsFolder: before });
      // Raw SQL: the schema of today names member columns that migrations after 0016 add.
      const [m] = await old.sql<{ id: number }[]>`
        insert into member (email, display_name) values ('loans@example.com', 'loans') returning id`;
      const loan = { memberId: m!.id, type: 'LOAN' as const };
      await old.db.insert(account).values([
        {
          ...loan,
          name: 'Mortgage',
          loanAmount: 1_200_000,
          loanRate: '12',
          loanMethod: 'EQUAL_PAYMENT',
          loanMonths: 12,
          loanStart: '2026-02-10',
          // 08:30 on 03-18 in Seoul: the backfill takes the UTC day.
          createdAt: new Date('2026-03-17T23:30:00Z'),
        },
        {
          ...loan,
          name: 'No rate',
          loanAmount: 500_000,
          loanMethod: 'BULLET',
          loanMonths: 6,
          loanStart: '2025-01-01',
          createdAt: new Date('2026-01-05T03:00:00Z'),
        },
        { ...loan, name: 'No terms' },
        { memberId: m!.id, name: 'Cash', type: 'CASH' },
      ]);

      await migrateDatabase(url.toString());
      const rows = await old.db
        .select({
          name: account.name,
          validFrom: walletLoanHistory.validFrom,
          loanAmount: walletLoanHistory.loanAmount,
          loanRate: walletLoanHistory.loanRate,
          loanMethod: walletLoanHistory.loanMethod,
          loanMonths: walletLoanHistory.loanMonths,
          loanStart: walletLoanHistory.loanStart,
        })
        .from(walletLoanHistory)
        .innerJoin(
          account,
          and(eq(account.memberId, walletLoanHistory.memberId), eq(account.id, walletLoanHistory.accountId)),
        )
        .orderBy(account.name);
      expect(rows).toEqual([
        {
          name: 'Mortgage',
          validFrom: '2026-03-17',
          loanAmount: 1_200_000,
          loanRate: '12.0000',
          loanMethod: 'EQUAL_PAYMENT',
          loanMonths: 12,
          loanStart: '2026-02-10',
        },
        {
          name: 'No rate',
          validFrom: '2026-01-05',
          loanAmount: 500_000,
          loanRate: null,
          loanMethod: 'BULLET',
          loanMonths: 6,
          loanStart: '2025-01-01',
        },
      ]);
    } finally {
      await old.close();
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      rmSync(before, { recursive: true, force: true });
    }
  });

  it('ledger volume: backfilled from existing rows, wider data still migrates and can shrink (FI2)', async () => {
    const name = `${dbName}_volume`;
    const url = new URL(testUrl);
    url.pathname = `/${name}`;
    const before = migrationsBefore('0018_ledger_volume');
    await admin.unsafe(`create database "${name}"`);
    const old = postgres(url.toString(), { max: 1, onnotice: () => {} });
    try {
      await migrateDatabase(url.toString(), { migrationsFolder: before });
      const [small] =
        await old`insert into member (email, display_name) values ('small@example.com', 'small') returning id`;
      const [wide] =
        await old`insert into member (email, display_name) values ('wide@example.com', 'wide') returning id`;
      await old`insert into account (member_id, name, type, opening_balance, current_value, loan_amount)
                values (${small!.id}, 'Cash', 'CASH', -300, 20, null)`;
      await old`insert into account_entry (member_id, type, amount, entry_date)
                values (${small!.id}, 'EXPENSE', 1000, '2026-01-01'), (${small!.id}, 'INCOME', 50, '2026-01-02')`;
      await old`insert into budget (member_id, category, year, month, amount) values (${small!.id}, 'Food', 2026, 1, 7)`;
      await old`insert into budget_income (member_id, year, month, amount) values (${small!.id}, 2026, 1, 9)`;
      await old`insert into budget_onetime (member_id, name, amount, start_date, end_date)
                values (${small!.id}, 'Trip', 11, '2026-01-01', '2026-01-31')`;
      // Wider than a JS number reads, as issue 17 found them: two entries whose sum and balance are past 2^53 − 1.
      const [wallet] =
        await old`insert into account (member_id, name, type) values (${wide!.id}, 'Big', 'BANK') returning id`;
      await old`insert into account_entry (member_id, account_id, type, amount, entry_date)
                values (${wide!.id}, ${wallet!.id}, 'INCOME', 9007199254740991, '2026-01-01'),
                       (${wide!.id}, ${wallet!.id}, 'INCOME', 9007199254740991, '2026-01-02')`;

      await migrateDatabase(url.toString());
      const volumes = await old`select member_id, volume::text from ledger_volume order by member_id`;
      expect(volumes.map((row) => [row.member_id, row.volume])).toEqual([
        [small!.id, String(300 + 20 + 1000 + 50 + 7 + 9 + 11)],
        [wide!.id, '18014398509481982'],
      ]);
      const [check] = await old`select convalidated from pg_constraint where conname = 'account_balance_safe'`;
      expect(check!.convalidated).toBe(false);
      // The wide member cannot grow, but can shrink back into range.
      expect(
        await sqlState(
          old`insert into account_entry (member_id, type, amount, entry_date) values (${wide!.id}, 'EXPENSE', 1, '2026-01-03')`,
        ),
      ).toBe(CHECK);
      await old`delete from account_entry where member_id = ${wide!.id} and entry_date = '2026-01-02'`;
      const [after] =
        await old`select volume::text, (select balance from account where member_id = ${wide!.id}) as balance
                                  from ledger_volume where member_id = ${wide!.id}`;
      expect([after!.volume, Number(after!.balance)]).toEqual(['9007199254740991', Number.MAX_SAFE_INTEGER]);
      // A member without a volume row yet (nothing counted) gets one with the first amount.
      const [fresh] =
        await old`insert into member (email, display_name) values ('fresh@example.com', 'fresh') returning id`;
      await old`insert into budget_income (member_id, year, month, amount) values (${fresh!.id}, 2026, 1, 5)`;
      const [counted] = await old`select volume::text from ledger_volume where member_id = ${fresh!.id}`;
      expect(counted!.volume).toBe('5');
    } finally {
      await old.end();
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      rmSync(before, { recursive: true, force: true });
    }
  });

  it("entry sync answers (L36): the change log's live entries get their answer, tombstones and other kinds none", async () => {
    const name = `${dbName}_entry_json`;
    const url = new URL(testUrl);
    url.pathname = `/${name}`;
    const before = migrationsBefore('0020_entry_sync_json');
    await admin.unsafe(`create database "${name}"`);
    const old = postgres(url.toString(), { max: 1, onnotice: () => {} });
    try {
      await migrateDatabase(url.toString(), { migrationsFolder: before });
      const [m] = await old`insert into member (email, display_name) values ('sync@example.com', 'sync') returning id`;
      const memberId = m!.id as number;
      const [wallet] =
        await old`insert into account (member_id, name, type) values (${memberId}, 'Cash', 'CASH') returning id`;
      await old`insert into tag (member_id, name, sort_order)
                values (${memberId}, '여행', 2), (${memberId}, '회사', 1)`;
      const [entry] = await old`
        insert into account_entry (member_id, account_id, type, amount, entry_date, memo, category, currency,
          original_amount, exchange_rate, created_at, updated_at)
        values (${memberId}, ${wallet!.id}, 'EXPENSE', 12000, '2026-11-20', '점심', '식비', 'USD', 9.25, 1297.3,
          '2026-11-20 03:04:05.678912+00', '2026-11-21 00:00:00+09')
        returning id`;
      await old`insert into entry_tag (member_id, entry_id, tag_id)
                select ${memberId}, ${entry!.id}, id from tag where member_id = ${memberId}`;
      const [gone] = await old`insert into account_entry (member_id, type, amount, entry_date)
                               values (${memberId}, 'INCOME', 5, '2026-11-01') returning id`;
      await old`delete from account_entry where member_id = ${memberId} and id = ${gone!.id}`;

      await migrateDatabase(url.toString());
      const logged = await old`select entity, entity_id, deleted, record_json from ledger_change
                               where member_id = ${memberId} and entity in ('entry', 'wallet') order by entity, entity_id`;
      expect(logged.map((row) => [row.entity, row.entity_id, row.deleted, row.record_json === null])).toEqual([
        ['entry', entry!.id, false, false],
        ['entry', gone!.id, true, true],
        ['wallet', wallet!.id, false, true],
      ]);
      expect(JSON.parse(logged[0]!.record_json as string)).toEqual({
        id: entry!.id,
        type: 'EXPENSE',
        amount: 12000,
        date: '2026-11-20',
        memo: '점심',
        category: '식비',
        accountId: wallet!.id,
        tags: ['회사', '여행'],
        currency: 'USD',
        originalAmount: '9.25',
        exchangeRate: '1297.3',
        installmentMonths: null,
        pending: false,
        notifKey: null,
        recurringId: null,
        createdAt: '2026-11-20T03:04:05.678Z',
        updatedAt: '2026-11-20T15:00:00.000Z',
      });
    } finally {
      await old.end();
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      rmSync(before, { recursive: true, force: true });
    }
  });
});

describe('types through the driver', () => {
  it('reads bigint money as numbers, dates as strings, bytea as Buffer, and joins on the composite keys', async () => {
    const m = await newMember('types@example.com');
    const [a] = await handle.db
      .insert(account)
      .values({ memberId: m.id, name: 'Wallet', type: 'CASH', openingBalance: 9_007_199_254_735_991 })
      .returning();
    // The largest the member's amounts may add up to with the entry below (decision FI2).
    expect(a!.balance).toBe(Number.MAX_SAFE_INTEGER - 5000);
    const [e] = await handle.db
      .insert(accountEntry)
      .values({ memberId: m.id, accountId: a!.id, type: 'EXPENSE', amount: 5000, entryDate: '2025-02-28' })
      .returning();
    expect(e!.entryDate).toBe('2025-02-28');
    expect(e!.amount).toBe(5000);
    expect(e!.createdAt).toBeInstanceOf(Date);
    const [tg] = await handle.db.insert(tag).values({ memberId: m.id, name: 'trip' }).returning();
    await handle.db.insert(entryTag).values({ memberId: m.id, entryId: e!.id, tagId: tg!.id });

    const bytes = Buffer.from([0, 1, 2, 255]);
    const [img] = await handle.db
      .insert(boardImage)
      .values({ memberId: m.id, contentType: 'image/png', bytes, byteSize: bytes.length })
      .returning();
    expect(img!.id).toMatch(/^[A-Za-z0-9_-]{16}$/);
    const [read] = await handle.db.select().from(boardImage).where(eq(boardImage.id, img!.id));
    expect(Buffer.isBuffer(read!.bytes)).toBe(true);
    expect(read!.bytes.equals(bytes)).toBe(true);

    const loaded = await handle.db
      .select({ account: account.name, tag: tag.name })
      .from(accountEntry)
      .innerJoin(account, and(eq(account.memberId, accountEntry.memberId), eq(account.id, accountEntry.accountId)))
      .innerJoin(entryTag, and(eq(entryTag.memberId, accountEntry.memberId), eq(entryTag.entryId, accountEntry.id)))
      .innerJoin(tag, and(eq(tag.memberId, entryTag.memberId), eq(tag.id, entryTag.tagId)))
      .where(eq(accountEntry.memberId, m.id));
    expect(loaded).toEqual([{ account: 'Wallet', tag: 'trip' }]);

    const [group] = await handle.db
      .insert(tagCategory)
      .values({ name: 'Topics', boards: ['saving', 'tips'] })
      .returning();
    expect(group!.boards).toEqual(['saving', 'tips']);
    await handle.db.insert(boardTag).values({ tagCategoryId: group!.id, name: 'frugal' });

    await handle.db.insert(appSetting).values({ key: 'signup_enabled', value: true });
    const [setting] = await handle.db.select().from(appSetting).where(eq(appSetting.key, 'signup_enabled'));
    expect(setting!.value).toBe(true);
  });
});

describe('member deletion', () => {
  it('cascades to every row of the member, including other members’ votes/comments/reports on their posts', async () => {
    const db = handle.db;
    const gone = await newMember('gone@example.com');
    const stay = await newMember('stay@example.com');
    const id = gone.id;

    await db.insert(authSession).values({
      tokenHash: `h-${id}`,
      memberId: id,
      displayName: 'gone',
      plan: 'FREE',
      role: 'USER',
      expiresAt: new Date(Date.now() + 3600_000),
    });
    await db.insert(pointHistory).values({ memberId: id, amount: 10, reason: 'POST' });
    const [acc] = await db.insert(account).values({ memberId: id, name: 'Card', type: 'CARD' }).returning();
    const [top] = await db.insert(category).values({ memberId: id, name: 'Food', type: 'EXPENSE' }).returning();
    await db.insert(category).values({ memberId: id, name: 'Lunch', type: 'EXPENSE', parentId: top!.id });
    const [entry] = await db
      .insert(accountEntry)
      .values({
        memberId: id,
        accountId: acc!.id,
        type: 'EXPENSE',
        amount: 1,
        entryDate: '2025-01-01',
        notifKey: 'n',
        // memo + category of a confirmed entry: learned into merchant_category by trigger
        memo: 'm',
        category: 'Lunch',
      })
      .returning();
    await db.insert(cardCancellation).values({ memberId: id, notifKey: 'c' });
    const [tg] = await db.insert(tag).values({ memberId: id, name: 't' }).returning();
    await db.insert(entryTag).values({ memberId: id, entryId: entry!.id, tagId: tg!.id });
    await db.insert(walletValueHistory).values({ memberId: id, accountId: acc!.id, day: '2025-01-01', value: 1 });
    await db.insert(walletLoanHistory).values({
      memberId: id,
      accountId: acc!.id,
      validFrom: '2025-01-01',
      loanAmount: 1,
      loanMethod: 'BULLET',
      loanMonths: 1,
      loanStart: '2025-01-01',
    });
    await db.insert(idempotencyKey).values({ memberId: id, route: 'POST /x', key: 'k', requestHash: 'h' });
    await db.insert(budget).values({ memberId: id, category: 'Food', year: 2025, month: 1, amount: 1 });
    await db.insert(budgetIncome).values({ memberId: id, year: 2025, month: 1, amount: 1 });
    await db
      .insert(budgetOnetime)
      .values({ memberId: id, name: 'Trip', amount: 1, startDate: '2025-01-01', endDate: '2025-01-31' });
    await db.insert(recurring).values({
      memberId: id,
      name: 'Rent',
      type: 'EXPENSE',
      amount: 1,
      accountId: acc!.id,
      frequency: 'MONTHLY',
      dayOfMonth: 25,
      startDate: '2025-01-01',
    });
    await db.insert(quickEntry).values({ memberId: id, name: 'Coffee', accountId: acc!.id, amount: 4500 });
    const [h] = await db.insert(investmentHolding).values({ memberId: id, name: 'ACME', quantity: '1' }).returning();
    await db
      .insert(investmentTrade)
      .values({ memberId: id, holdingId: h!.id, side: 'BUY', quantity: '1', price: '10', tradedAt: '2025-01-01' });
    const [image] = await db
      .insert(boardImage)
      .values({ memberId: id, contentType: 'image/png', bytes: Buffer.from([1]), byteSize: 1 })
      .returning();
    const shown = `/api/images/${image!.id}`; // bodies showing it are linked by triggers (post_image, comment_image)
    await db.insert(iapPurchase).values({ memberId: id, productId: 'p', purchaseToken: `gone-${id}` });
    const [statement] = await db
      .insert(statementImport)
      .values({
        memberId: id,
        fileName: 'a.csv',
        fileHash: 'h',
        fileSize: 1,
        reading: {},
        settings: {},
        counts: {},
        rowCount: 1,
      })
      .returning();
    await db
      .insert(statementImportRow)
      .values({ memberId: id, importId: statement!.id, rowIndex: 0, line: {}, outcome: 'NEW' });
    await db.insert(statementImportProfile).values({ memberId: id, name: 'Card', shapeKey: 's', settings: {} });

    // board: own post with others' comment/votes/report; own comment/votes/report on another member's post
    const [own] = await db.insert(post).values({ memberId: id, category: 'tips', title: 'a', body: shown }).returning();
    const [theirs] = await db
      .insert(post)
      .values({ memberId: stay.id, category: 'saving', title: 'c', body: 'd' })
      .returning();
    const [otherOnOwn] = await db.insert(comment).values({ postId: own!.id, memberId: stay.id, body: 'x' }).returning();
    const [ownOnTheirs] = await db
      .insert(comment)
      .values({ postId: theirs!.id, memberId: id, body: shown })
      .returning();
    await db.insert(postVote).values([
      { memberId: stay.id, postId: own!.id, direction: 'UP' },
      { memberId: id, postId: theirs!.id, direction: 'DOWN' },
    ]);
    await db.insert(commentVote).values([
      { memberId: stay.id, commentId: ownOnTheirs!.id, direction: 'UP' },
      { memberId: id, commentId: otherOnOwn!.id, direction: 'UP' },
    ]);
    await db.insert(report).values({ memberId: id, targetType: 'POST', targetId: theirs!.id });

    // every table holding a member_id has a row of this member (so the check below covers them all)
    const memberTables = await handle.sql<{ table_name: string }[]>`
      select table_name from information_schema.columns
      where table_schema = 'public' and column_name = 'member_id' order by table_name`;
    expect(memberTables.length).toBeGreaterThanOrEqual(20);
    const countOf = async (table: string) => {
      const [row] = await handle.sql<{ n: number }[]>`
        select count(*)::int as n from ${handle.sql(table)} where member_id = ${id}`;
      return row!.n;
    };
    for (const { table_name } of memberTables) expect(await countOf(table_name), table_name).toBeGreaterThan(0);

    await db.delete(member).where(eq(member.id, id));

    for (const { table_name } of memberTables) expect(await countOf(table_name), table_name).toBe(0);
    const [tagLinks] = await handle.sql<{ n: number }[]>`
      select count(*)::int as n from entry_tag where entry_id = ${entry!.id}`;
    expect(tagLinks!.n).toBe(0);
    const [onOwnPost] = await handle.sql<{ n: number }[]>`
      select (select count(*) from comment where post_id = ${own!.id})
           + (select count(*) from post_vote where post_id = ${own!.id})
           + (select count(*) from comment_vote where comment_id = ${otherOnOwn!.id})
           + (select count(*) from comment_vote where comment_id = ${ownOnTheirs!.id}) as n`;
    expect(Number(onOwnPost!.n)).toBe(0);
    // the other member is untouched
    const [theirPost] = await db.select().from(post).where(eq(post.id, theirs!.id));
    expect(theirPost?.memberId).toBe(stay.id);
  });
});
