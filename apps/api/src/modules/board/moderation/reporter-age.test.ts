/**
 * `BOARD_REPORTER_MIN_AGE_DAYS` (decisions BD11, BD28): the account age from which a report counts toward
 * the automatic block. The default keeps BD11's 7 days; `0` is the spec's plain rule, every report counts,
 * so a board whose members all signed up this week can still hide a post.
 */
import { post } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { InvalidEnvironmentError, loadEnv } from '../../../env.js';
import { bodyOf } from '../../../test/client.js';
import { apiTest, type Caller, test } from '../../../test/fixtures.js';
import { callers, insertPost } from '../posts/board.fixture.js';

const reportPost = (caller: Caller, id: number) =>
  caller.api.board.reportPost({ params: { id }, body: { reason: 'Abusive' } });

async function postState(app: FastifyInstance, id: number) {
  const [row] = await app.db
    .select({ blocked: post.blocked, blockReason: post.blockReason, reportCount: post.reportCount })
    .from(post)
    .where(eq(post.id, id));
  return row!;
}

const DATABASE_URL = 'postgres://localhost/x';

function issuesOf(source: Record<string, string>): string[] {
  try {
    loadEnv(source);
  } catch (error) {
    if (error instanceof InvalidEnvironmentError) return error.issues;
    throw error;
  }
  return [];
}

describe('BOARD_REPORTER_MIN_AGE_DAYS', () => {
  it('is a whole number of days from 0, 7 by default', () => {
    expect(loadEnv({ DATABASE_URL }).BOARD_REPORTER_MIN_AGE_DAYS).toBe(7);
    expect(loadEnv({ DATABASE_URL, BOARD_REPORTER_MIN_AGE_DAYS: '0' }).BOARD_REPORTER_MIN_AGE_DAYS).toBe(0);
    expect(loadEnv({ DATABASE_URL, BOARD_REPORTER_MIN_AGE_DAYS: '30' }).BOARD_REPORTER_MIN_AGE_DAYS).toBe(30);
    for (const bad of ['-1', '1.5', 'seven', '3651']) {
      expect(issuesOf({ DATABASE_URL, BOARD_REPORTER_MIN_AGE_DAYS: bad })).toEqual([
        expect.stringMatching(/^BOARD_REPORTER_MIN_AGE_DAYS: /),
      ]);
    }
  });
});

describe('the default (7 days)', () => {
  test('reports from accounts 6 days old do not count; from 7 days old they do', async ({ app, other }) => {
    const target = await insertPost(app, other.id);
    for (const reporter of await callers(app, 5, { ageDays: 6 })) {
      expect((await reportPost(reporter, target.id)).status).toBe(204);
    }
    expect(await postState(app, target.id)).toEqual({ blocked: false, blockReason: null, reportCount: 5 });

    const week = await insertPost(app, other.id);
    for (const reporter of await callers(app, 5, { ageDays: 7 })) {
      expect((await reportPost(reporter, week.id)).status).toBe(204);
    }
    expect(await postState(app, week.id)).toEqual({ blocked: true, blockReason: 'REPORTS', reportCount: 5 });
  });
});

const everyReportCounts = apiTest({ BOARD_REPORTER_MIN_AGE_DAYS: '0' });

describe('0: every report counts (the spec rule)', () => {
  everyReportCounts('five reports from accounts made today block a post', async ({ app, admin, other }) => {
    const target = await insertPost(app, other.id);
    const newcomers = await callers(app, 5, { ageDays: 0 });
    for (const reporter of newcomers.slice(0, 4)) expect((await reportPost(reporter, target.id)).status).toBe(204);
    expect(await postState(app, target.id)).toEqual({ blocked: false, blockReason: null, reportCount: 4 });
    expect((await reportPost(newcomers[4]!, target.id)).status).toBe(204);
    expect(await postState(app, target.id)).toEqual({ blocked: true, blockReason: 'REPORTS', reportCount: 5 });

    const history = bodyOf(
      await admin.api.board.reportHistory({ query: { targetType: 'POST', targetId: target.id } }),
      200,
    );
    expect(history.items.map((item) => item.counted)).toEqual([true, true, true, true, true]);
  });
});
