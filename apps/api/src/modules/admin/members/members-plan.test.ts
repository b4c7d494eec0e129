import { member } from '@nestegg/db';
import { desc, lt, type SQL, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf } from '../../../test/client.js';
import { test } from '../../../test/fixtures.js';

/** One node of `explain (format json)`. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Scan Direction'?: string;
  'Actual Rows'?: number;
  Plans?: PlanNode[];
}

async function planOf(app: FastifyInstance, statement: SQL): Promise<PlanNode[]> {
  const rows = await app.db.execute<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    sql`explain (analyze, format json) ${statement}`,
  );
  const walk = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(walk)];
  return walk(rows[0]!['QUERY PLAN'][0].Plan);
}

const SEEDED = 20_000;

describe('admin member list at 20,000 members (EXPLAIN on seeded data)', () => {
  test('the total is one counter row, a cursor page reads its rows from the key, a search stops counting at 10,000', async ({
    app,
    admin,
  }) => {
    await app.db.execute(sql`
      insert into member (email, display_name, provider)
      select 'seeded-' || g || '@nestegg.test', 'Seeded ' || g, 'LOCAL' from generate_series(1, ${SEEDED}) as g`);
    await app.db.execute(sql`analyze member, member_count`);
    const [counted] = await app.db.execute<{ exact: number }>(sql`select count(*)::int as exact from member`);
    const exact = counted!.exact;

    const first = bodyOf(await admin.api.admin.listMembers({ query: { size: 20 } }), 200);
    expect(first).toMatchObject({ page: 1, size: 20, total: exact, totalIsLowerBound: false });
    const totalPlan = await planOf(app, sql`select members from member_count`);
    expect(totalPlan.some((node) => node['Relation Name'] === 'member')).toBe(false);

    // The keyset page: an index range on the primary key from the cursor, 21 rows whatever the depth.
    const middle = first.items[0]!.id - SEEDED / 2;
    const pagePlan = await planOf(
      app,
      app.db
        .select({ id: member.id, email: member.email, displayName: member.displayName })
        .from(member)
        .where(lt(member.id, middle))
        .orderBy(desc(member.id))
        .limit(21)
        .getSQL(),
    );
    const reads = pagePlan.filter((node) => node['Relation Name'] === 'member');
    expect(
      reads.map((node) => [node['Node Type'], node['Index Name'], node['Scan Direction'], node['Actual Rows']]),
    ).toEqual([['Index Scan', 'member_pkey', 'Backward', 21]]);
    const deep = bodyOf(await admin.api.admin.listMembers({ query: { size: 20, cursor: first.nextCursor! } }), 200);
    expect(deep.items[0]!.id).toBeLessThan(first.items[19]!.id);

    const search = bodyOf(await admin.api.admin.listMembers({ query: { q: 'seeded-', size: 20 } }), 200);
    expect(search).toMatchObject({ total: 10_000, totalIsLowerBound: true });
    expect(search.items).toHaveLength(20);
    const narrow = bodyOf(await admin.api.admin.listMembers({ query: { q: 'seeded-1234@' } }), 200);
    expect(narrow).toMatchObject({ total: 1, totalIsLowerBound: false, nextCursor: null });
  });
});
