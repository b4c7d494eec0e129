import { fillPlaceholders, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf } from '../../../test/client.js';
import { test } from '../../../test/fixtures.js';
import { type PreparedPlan, planCosts, readsOf, runPrepared } from '../../../test/prepared-plan.js';
import { addTagGroup, clearBoard } from './board.fixture.js';
import { pageStatement, type Shape } from './post-list.js';

const SEEDED = 20_000;
const AUTHORS = 2_000;
const TAG = 'fx';
/** A cursor 100 posts before the oldest (the bench's deep page). */
const NEAR_THE_END = 101;

/** The page statement of `shape` prepared as the api prepares it, run with `values`. */
function preparedPage(app: FastifyInstance, shape: Shape, values: Record<string, unknown>): Promise<PreparedPlan> {
  const query = pageStatement(app.db, shape).toSQL();
  return runPrepared(app, query.sql, fillPlaceholders(query.params, values));
}

describe(`the post list's page statement at ${SEEDED.toLocaleString('en-US')} posts (plans on seeded data)`, () => {
  test('every shape keeps one generic plan that reads the page by key: no planning per call, no scan of a table', async ({
    app,
    free,
  }) => {
    await clearBoard(app);
    await addTagGroup(app, 'All', [], [TAG]);
    // 2,000 authors; the posts' triggers fill post_tag and the counters; one post in four has the tag, the
    // caller voted on one in seven.
    await app.db.execute(sql`
      insert into member (email, display_name, provider)
      select 'plan-author-' || g || '@nestegg.test', 'Author ' || g, 'LOCAL' from generate_series(1, ${AUTHORS}) as g`);
    await app.db.execute(sql`
      insert into post (member_id, category, title, body, tags)
      select (select min(id) from member where email like 'plan-author-%') + g % ${AUTHORS},
        (array['community', 'saving', 'tips'])[1 + g % 3]::board_category, 'Post ' || g, 'Body',
        case when g % 4 = 0 then array[${TAG}] else '{}' end
      from generate_series(1, ${SEEDED}) as g`);
    await app.db.execute(sql`
      insert into post_vote (member_id, post_id, direction)
      select ${free.id}, id, 'UP' from post where id % 7 = 0`);
    await app.db.execute(sql`analyze post, post_tag, post_vote, board_post_count, member`);

    const page = { viewerId: free.id, limit: 21, offset: 0, depth: 21, countTag: '' };
    const shapes: [string, Shape, Record<string, unknown>][] = [
      ['every board', { board: false, tag: false, keyset: false, admin: false }, page],
      [
        'a tag on every board',
        { board: false, tag: true, keyset: false, admin: false },
        { ...page, tag: TAG, countTag: TAG },
      ],
      ['one board', { board: true, tag: false, keyset: false, admin: false }, { ...page, category: 'saving' }],
      [
        'a cursor page',
        { board: false, tag: false, keyset: true, admin: true },
        { ...page, afterNotice: false, afterId: SEEDED / 2 },
      ],
      // The bench's deep page (decision BD30); at this size its plan is kept even with the cursor's values in
      // plain sight, so the costs below are what would catch a custom plan that undercuts the generic one.
      [
        'a cursor page near the end',
        { board: false, tag: false, keyset: true, admin: false },
        { ...page, afterNotice: false, afterId: NEAR_THE_END },
      ],
      [
        'a tag cursor page near the end',
        { board: false, tag: true, keyset: true, admin: false },
        { ...page, tag: TAG, countTag: TAG, afterNotice: false, afterId: NEAR_THE_END },
      ],
    ];
    for (const [name, shape, values] of shapes) {
      const prepared = await preparedPage(app, shape, values);
      expect({ name, custom: prepared.customPlans, generic: prepared.genericPlans }).toEqual({
        name,
        custom: 5,
        generic: 5,
      });
      const reads = readsOf(prepared.nodes);
      expect(
        // The counters (a row per board, tag and visibility) are the one table read whole.
        reads.filter((read) => !read.startsWith('Index') && !read.endsWith('on board_post_count')),
        name,
      ).toEqual([]);
      expect(reads, name).toEqual(
        expect.arrayContaining([
          'Index Scan on post via post_pkey',
          'Index Scan on member via member_pkey',
          expect.stringMatching(/^Index (Only )?Scan on post_vote via /),
          shape.tag
            ? 'Index Only Scan on post_tag via post_tag_order_idx'
            : 'Index Only Scan on post via post_board_order_idx',
        ]),
      );
      expect(
        prepared.nodes.some((node) => node['Node Type'].startsWith('Hash')),
        name,
      ).toBe(false);
    }

    // Whatever the cursor, the planner costs the page alike: near the end of the list the cursor's values in
    // plain sight made a custom plan cheaper than the generic one once the board outgrew the page (the custom
    // plan saw the few rows left), and Postgres planned every call.
    const cursorPage = pageStatement(app.db, { board: false, tag: false, keyset: true, admin: false }).toSQL();
    for (const afterId of [NEAR_THE_END, SEEDED / 2, SEEDED]) {
      const values = { ...page, afterNotice: false, afterId };
      const costs = await planCosts(app, cursorPage.sql, fillPlaceholders(cursorPage.params, values));
      expect({ afterId, custom: costs.custom }).toEqual({ afterId, custom: costs.generic });
    }

    // The answers through the route: the tag page holds the newest tagged posts, the caller's votes on them.
    const tagged = bodyOf(await free.api.board.listPosts({ query: { tag: TAG, size: 20 } }), 200);
    expect(tagged.total).toBe(SEEDED / 4);
    expect(tagged.items.every((item) => item.tags.includes(TAG))).toBe(true);
    expect(tagged.items.map((item) => item.myVote)).toEqual(
      tagged.items.map((item) => (item.id % 7 === 0 ? 'UP' : null)),
    );
  });
});
