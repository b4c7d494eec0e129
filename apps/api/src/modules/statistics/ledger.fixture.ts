import { accountEntry, category } from '@nestegg/db';
import type { FastifyInstance } from 'fastify';
import type { TestMember } from '../../test/app.js';

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
