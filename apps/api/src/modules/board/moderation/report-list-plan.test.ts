import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf } from '../../../test/client.js';
import { test } from '../../../test/fixtures.js';
import { readsOf, runPrepared } from '../../../test/prepared-plan.js';
import { clearBoard } from '../posts/board.fixture.js';
import { pageQuery } from './report-list.js';

const SEEDED = 20_000;
const PAGE = 20;
/** As many members as the bench's board has authors. */
const MEMBERS = 2_000;

/**
 * The report page prepared as the api sends it, run ten times: how often Postgres planned it for its values,
 * how often it ran the generic plan, and every table the last plan reads, with how.
 */
async function runReportPage(app: FastifyInstance) {
  const query = new PgDialect().sqlToQuery(pageQuery(PAGE, 0));
  const plan = await runPrepared(app, query.sql, query.params);
  const bitmaps = plan.nodes
    .filter((node) => node['Node Type'] === 'Bitmap Index Scan')
    .map((node) => node['Index Name']);
  return { custom: plan.customPlans, generic: plan.genericPlans, bitmaps, reads: readsOf(plan.nodes) };
}

describe(`the admin's report list at ${SEEDED.toLocaleString('en-US')} posts (plans on seeded data)`, () => {
  test('the page reads the flagged items from their partial indexes and posts and comments by key, in one generic plan', async ({
    app,
    free,
    admin,
  }) => {
    await clearBoard(app);
    // A quiet board with a small moderation queue: one post in 500 reported, one in 700 blocked, a comment on
    // every tenth post and one comment in 50 of those reported (more often than any post).
    await app.db.execute(sql`
      insert into member (email, display_name, provider)
      select 'report-plan-' || g || '@nestegg.test', 'Member ' || g, 'LOCAL' from generate_series(1, ${MEMBERS}) as g`);
    await app.db.execute(sql`
      insert into post (member_id, category, title, body, report_count, blocked, block_reason)
      select ${free.id}, (array['community', 'saving', 'tips'])[1 + g % 3]::board_category, 'Post ' || g, 'Body ' || g,
        case when g % 500 = 0 then 1 + g % 3 else 0 end, g % 700 = 0, case when g % 700 = 0 then 'SPAM' end
      from generate_series(1, ${SEEDED}) as g`);
    await app.db.execute(sql`
      insert into comment (post_id, member_id, body, report_count)
      select id, ${free.id}, 'Comment on ' || id, case when id % 500 = 10 then 5 else 0 end from post where id % 10 = 0`);
    await app.db.execute(sql`analyze post, comment, member, report`);

    const plan = await runReportPage(app);
    expect({ custom: plan.custom, generic: plan.generic }).toEqual({ custom: 5, generic: 5 });
    const flaggedIndexes = ['post_reported_idx', 'post_blocked_idx', 'comment_reported_idx', 'comment_blocked_idx'];
    expect(plan.bitmaps).toEqual(flaggedIndexes);
    // The tables that grow with the board are never read whole: the flagged rows' heap pages from the
    // bitmaps, the page's parents and comments by key (members and reports are left to the planner's costs).
    const whole = plan.reads.filter((read) => / on (post|comment)$/.test(read) && !read.startsWith('Bitmap Heap Scan'));
    expect(whole, plan.reads.join('; ')).toEqual([]);
    expect(plan.reads).toEqual(
      expect.arrayContaining(['Index Scan on post via post_pkey', 'Index Scan on comment via comment_pkey']),
    );

    const listed = bodyOf(await admin.api.board.listReports({ query: { size: PAGE } }), 200);
    expect(listed.items).toHaveLength(PAGE);
    const commentItem = listed.items.find((item) => item.targetType === 'COMMENT');
    expect(commentItem?.excerpt).toMatch(/^Comment on /);
    expect(
      listed.items.filter((item) => item.targetType === 'POST').every((item) => item.excerpt.startsWith('Body ')),
    ).toBe(true);
  });
});
