/**
 * Test data of the ledger written straight to the database: wallets, categories and tags belong to other
 * modules, so entry tests do not depend on their routes.
 */
import { type AccountType, account, accountEntry, category, type NewAccountEntry, tag } from '@nestegg/db';
import type { FastifyInstance } from 'fastify';

let serial = 0;
const unique = (prefix: string) => `${prefix} ${++serial}`;

export async function seedWallet(
  app: FastifyInstance,
  memberId: number,
  type: AccountType = 'CARD',
  name = unique(type),
): Promise<number> {
  const [row] = await app.db.insert(account).values({ memberId, name, type }).returning({ id: account.id });
  return row!.id;
}

export async function seedCategory(
  app: FastifyInstance,
  memberId: number,
  name: string,
  type: 'INCOME' | 'EXPENSE' = 'EXPENSE',
  parentId: number | null = null,
): Promise<number> {
  const [row] = await app.db.insert(category).values({ memberId, name, type, parentId }).returning({ id: category.id });
  return row!.id;
}

export async function seedTag(app: FastifyInstance, memberId: number, name: string, sortOrder = 0): Promise<number> {
  const [row] = await app.db.insert(tag).values({ memberId, name, sortOrder }).returning({ id: tag.id });
  return row!.id;
}

/** Entries of one member (defaults: a confirmed 1,000 expense); returns their ids in insertion order. */
export async function seedEntries(
  app: FastifyInstance,
  memberId: number,
  rows: Partial<Omit<NewAccountEntry, 'memberId'>>[],
): Promise<number[]> {
  if (rows.length === 0) return [];
  const inserted = await app.db
    .insert(accountEntry)
    .values(rows.map((row) => ({ type: 'EXPENSE' as const, amount: 1_000, entryDate: '2024-05-01', ...row, memberId })))
    .returning({ id: accountEntry.id });
  return inserted.map((row) => row.id);
}
