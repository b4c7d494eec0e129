import { fillPlaceholders, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { likeContains } from '../../../lib/sql-like.js';
import { test } from '../../../test/fixtures.js';
import { type PlanNode, type PreparedPlan, runPrepared } from '../../../test/prepared-plan.js';
import { pageQuery, shapeOf, totalsQuery } from './entry-list.js';

const ENTRIES = 20_000;
const COMMON = '스타벅스';
const RARE = '르꼬르동';

/** `ENTRIES` entries of a member: one memo in twenty names COMMON, one in 5,000 RARE, the rest other shops. */
async function seedLedger(app: FastifyInstance, memberId: number) {
  await app.db.execute(sql`
    insert into account_entry (member_id, type, amount, entry_date, memo)
    select ${memberId}, 'EXPENSE', 1000 + g, date '2026-11-26' - g / 10,
      case when g % 5000 = 7 then ${RARE} || ' 베이커리' when g % 20 = 0 then ${COMMON} || ' 강남점'
        else (array['쿠팡', 'GS25 역삼점', '배달의민족', 'Netflix'])[1 + g % 4] || ' ' || g % 13 end
      from generate_series(1, ${ENTRIES}) as g`);
}

/** The search's page and totals statements prepared as the api prepares them, run ten times each. */
async function preparedSearch(app: FastifyInstance, memberId: number, q: string): Promise<PreparedPlan[]> {
  const shape = shapeOf({ q, page: 1, size: 20 });
  const values = { memberId, term: q, pattern: likeContains(q), limit: 21, offset: 0 };
  const plans: PreparedPlan[] = [];
  for (const query of [pageQuery(app.db, shape).toSQL(), totalsQuery(app.db, shape).toSQL()]) {
    plans.push(await runPrepared(app, query.sql, fillPlaceholders(query.params, values)));
  }
  return plans;
}

/** How each node reads account_entry (`Bitmap Index Scan via …`, `Seq Scan`), and any bitmap AND. */
const entryReads = (nodes: PlanNode[]) =>
  nodes
    .filter(
      (node) =>
        node['Relation Name'] === 'account_entry' ||
        node['Index Name']?.startsWith('account_entry') ||
        node['Node Type'] === 'BitmapAnd',
    )
    .map((node) => `${node['Node Type']}${node['Index Name'] ? ` via ${node['Index Name']}` : ''}`);

describe(`memo search plans at ${ENTRIES.toLocaleString('en-US')} entries of the caller and of another member`, () => {
  test('a term of three characters or more is read only through the member-keyed memo index', async ({
    app,
    premium,
    other,
  }) => {
    await seedLedger(app, premium.id);
    await seedLedger(app, other.id);
    await app.db.execute(sql`analyze account_entry`);

    for (const term of [COMMON, RARE, COMMON.slice(1)]) {
      const [page, totals] = await preparedSearch(app, premium.id, term);
      for (const [name, plan] of [
        ['page', page!],
        ['totals', totals!],
      ] as const) {
        const label = `${term} ${name}`;
        // The totals keep the generic plan (the term's pieces and the pattern are subqueries, so no custom plan
        // looks cheaper); the page may stay custom, knowing its limit, with the same reads.
        if (name === 'totals') expect({ label, generic: plan.genericPlans }).toEqual({ label, generic: 5 });
        // One index lookup, as long as the member's matches: no scan of the member's ledger or the table, and
        // no bitmap AND with a member index (L37).
        expect(entryReads(plan.nodes), label).toEqual([
          'Bitmap Heap Scan',
          'Bitmap Index Scan via account_entry_member_memo_grams_idx',
        ]);
      }
    }
  });

  test("the keys carry the member: a search counts the caller's matches only", async ({ app, premium, other }) => {
    await seedLedger(app, premium.id);
    await seedLedger(app, other.id);
    for (const [term, matches] of [
      [COMMON, ENTRIES / 20],
      [RARE, ENTRIES / 5000],
      ['강남점', ENTRIES / 20],
      ['gs25 역삼', ENTRIES / 4],
    ] as const) {
      const shape = shapeOf({ q: term, page: 1, size: 20 });
      const values = { memberId: premium.id, term, pattern: likeContains(term), limit: 21, offset: 0 };
      const [totals] = await totalsQuery(app.db, shape).execute(values);
      expect({ term, total: Number(totals?.total) }).toEqual({ term, total: matches });
      const page = await pageQuery(app.db, shape).execute(values);
      expect(page.every((row) => row.memberId === premium.id && row.memo?.toLowerCase().includes(term))).toBe(true);
    }
  });

  test('a shorter term walks the member’s entries by date (no piece to look up)', async ({ app, premium }) => {
    await seedLedger(app, premium.id);
    await app.db.execute(sql`analyze account_entry`);
    const [page] = await preparedSearch(app, premium.id, '스타');
    expect(entryReads(page!.nodes)).not.toContain('Bitmap Index Scan via account_entry_member_memo_grams_idx');
  });
});
