import { accountEntry, category } from '@nestegg/db';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { TestMember } from '../../../test/app.js';

/** Test data of the budget and statistics tests, written straight to the tables. */

type LedgerType = 'INCOME' | 'EXPENSE';

/** Creates categories of `type`: each key a top-level category, its list its sub-categories. */
export async function categoryTree(
  app: FastifyInstance,
  owner: TestMember,
  tree: Record<string, string[]>,
  type: LedgerType = 'EXPENSE',
): Promise<void> {
  for (const [top, subs] of Object.entries(tree)) {
    const [parent] = await app.db
      .insert(category)
      .values({ memberId: owner.id, name: top, type })
      .returning({ id: category.id });
    if (subs.length > 0) {
      await app.db
        .insert(category)
        .values(subs.map((name) => ({ memberId: owner.id, name, type, parentId: parent!.id })));
    }
  }
}

export interface TestEntry {
  type?: LedgerType;
  amount: number;
  date: string;
  category?: string | null;
  memo?: string | null;
  pending?: boolean;
}

/** Inserts entries (an expense, confirmed, unless said otherwise). */
export async function entries(app: FastifyInstance, owner: TestMember, rows: TestEntry[]): Promise<void> {
  await app.db.insert(accountEntry).values(
    rows.map((row) => ({
      memberId: owner.id,
      type: row.type ?? 'EXPENSE',
      amount: row.amount,
      entryDate: row.date,
      category: row.category ?? null,
      memo: row.memo ?? null,
      pending: row.pending ?? false,
    })),
  );
}

/**
 * A service of `size` entries written day by day from 2026-11-26 back, one in ten the owner's and the others
 * spread over fifty more members, so the owner's rows lie scattered among the service's in the heap (as a
 * household's do, written over the years with everyone else's). One in ten is an income, one in fifty
 * pending. Vacuumed and analysed, as a settled table is.
 */
export async function scatteredLedger(app: FastifyInstance, owner: TestMember, size: number): Promise<void> {
  await app.db.execute(sql`
    insert into member (email, display_name, provider)
    select 'scattered-' || g || '@nestegg.test', 'Member ' || g, 'LOCAL' from generate_series(1, 50) as g`);
  await app.db.execute(sql`
    with others as (select array_agg(id order by id) as ids from member where email like 'scattered-%')
    insert into account_entry (member_id, type, amount, entry_date, memo, category, pending)
    select case when g % 10 = 0 then ${owner.id} else o.ids[1 + g % 50] end,
      (case when g % 100 < 10 then 'INCOME' else 'EXPENSE' end)::ledger_type,
      1000 + g % 9000, date '2026-11-26' - g / 20, 'shop ' || g % 30,
      (array['식비', '카페', '교통', '쇼핑'])[1 + g % 4], g % 50 = 7
    from others o, generate_series(1, ${size}) as g`);
  await app.db.execute(sql`vacuum analyze account_entry`);
}
