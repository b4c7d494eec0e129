import { boardImage, comment, createDb, type DbHandle, member, post } from '@nestegg/db';
import { useTestDatabase } from '@nestegg/testing';
import { eq, inArray, sql } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEnv } from '../env.js';
import { boardImageCleanupJob, deleteUnreferencedBoardImages } from './board-image-cleanup.js';

const HOUR = 3_600_000;

describe('clean-up of board images no post or comment shows', () => {
  const database = useTestDatabase();
  let handle: DbHandle;
  beforeAll(() => {
    handle = createDb(database.current.url, { max: 4 });
  });
  afterAll(async () => {
    await handle.close();
  });

  let members = 0;
  async function newMember(): Promise<number> {
    members += 1;
    const [row] = await handle.db
      .insert(member)
      .values({ email: `images-${members}@nestegg.test`, displayName: 'Uploader' })
      .returning({ id: member.id });
    return row!.id;
  }

  /** An image uploaded `hoursAgo` hours ago (nothing shows it yet: stamped unreferenced since then). */
  async function image(memberId: number, hoursAgo: number): Promise<string> {
    const at = new Date(Date.now() - hoursAgo * HOUR);
    const [row] = await handle.db
      .insert(boardImage)
      .values({
        memberId,
        contentType: 'image/png',
        bytes: Buffer.from([1, 2, 3]),
        byteSize: 3,
        createdAt: at,
        unreferencedSince: at,
      })
      .returning({ id: boardImage.id });
    return row!.id;
  }

  const remaining = async (ids: string[]) =>
    (await handle.db.select({ id: boardImage.id }).from(boardImage).where(inArray(boardImage.id, ids)))
      .map((row) => row.id)
      .sort();

  it('deletes only images unreferenced for longer than the grace period', async () => {
    const { db } = handle;
    const owner = await newMember();
    const [oldUnused, freshUnused, oldInPost, oldInComment, oldEditedAway] = [
      await image(owner, 30),
      await image(owner, 2),
      await image(owner, 30),
      await image(owner, 30),
      await image(owner, 30),
    ] as [string, string, string, string, string];
    const [shown] = await db
      .insert(post)
      .values({ memberId: owner, category: 'tips', title: 'Look', body: `![](/api/images/${oldInPost})` })
      .returning({ id: post.id });
    await db.insert(comment).values({ postId: shown!.id, memberId: owner, body: `/api/images/${oldInComment}` });
    const [edited] = await db
      .insert(post)
      .values({ memberId: owner, category: 'tips', title: 'Edit', body: `/api/images/${oldEditedAway}` })
      .returning({ id: post.id });
    await db.update(post).set({ body: 'no picture after all' }).where(eq(post.id, edited!.id));
    // Edited away just now: the grace period starts again from the edit.
    const all = [oldUnused, freshUnused, oldInPost, oldInComment, oldEditedAway];

    const deleted = await deleteUnreferencedBoardImages(db, new Date(Date.now() - 24 * HOUR));

    expect(deleted).toBe(1);
    expect(await remaining(all)).toEqual([freshUnused, oldInPost, oldInComment, oldEditedAway].sort());
    const after = await deleteUnreferencedBoardImages(db, new Date(Date.now() + 1000));
    expect(after).toBe(2); // the fresh upload and the one edited away; the shown ones stay
    expect(await remaining(all)).toEqual([oldInPost, oldInComment].sort());
  });

  it('works through more images than one batch, and runs as the scheduled job with its grace period', async () => {
    const owner = await newMember();
    const old = await Promise.all(Array.from({ length: 7 }, () => image(owner, 50)));
    const kept = await image(owner, 47);
    expect(await deleteUnreferencedBoardImages(handle.db, new Date(Date.now() - 49 * HOUR), 3)).toBe(7);
    expect(await remaining([...old, kept])).toEqual([kept]);

    const env = loadEnv({ DATABASE_URL: database.current.url, BOARD_IMAGE_GRACE_HOURS: '36' });
    const context = { db: handle.db, logger: pino({ level: 'silent' }), now: () => new Date(), timeZone: 'UTC' };
    expect(await boardImageCleanupJob.run(context, env)).toEqual({ deleted: 1 });
    expect(await remaining([kept])).toEqual([]);
    expect(boardImageCleanupJob.cron(env)).toBe('27 * * * *');
  });

  it('refuses a grace period shorter than the 24 hours the upload quota counts', () => {
    expect(() => loadEnv({ DATABASE_URL: database.current.url, BOARD_IMAGE_GRACE_HOURS: '23' })).toThrow(
      /BOARD_IMAGE_GRACE_HOURS/,
    );
  });

  it('skips an image a post is referencing at this moment, and keeps it once that post commits', async () => {
    const owner = await newMember();
    const racing = await image(owner, 30);
    const reserved = await handle.sql.reserve();
    try {
      await reserved`begin`;
      await reserved`insert into post (member_id, category, title, body)
                     values (${owner}, 'saving', 'Now', ${`/api/images/${racing}`})`;
      // The post's transaction holds the image (FOR KEY SHARE): the job skips it instead of waiting.
      expect(await deleteUnreferencedBoardImages(handle.db, new Date())).toBe(0);
      await reserved`commit`;
    } finally {
      reserved.release();
    }
    expect(await deleteUnreferencedBoardImages(handle.db, new Date())).toBe(0);
    const [row] = await handle.db
      .select({ unreferencedSince: boardImage.unreferencedSince })
      .from(boardImage)
      .where(eq(boardImage.id, racing));
    expect(row).toEqual({ unreferencedSince: null });
  });

  it('a post naming an image the job is deleting is still written, without the dead reference', async () => {
    const owner = await newMember();
    const doomed = await image(owner, 30);
    const job = await handle.sql.reserve();
    try {
      await job`begin`;
      await job`delete from board_image where id = ${doomed}`;
      // The post waits for the job's transaction instead of failing on the foreign key.
      const writing = handle.db
        .insert(post)
        .values({ memberId: owner, category: 'tips', title: 'Late', body: `/api/images/${doomed}` })
        .returning({ id: post.id });
      await new Promise((resolve) => setTimeout(resolve, 200));
      await job`commit`;
      const [written] = await writing;
      const references = await handle.db.execute(sql`select * from post_image where post_id = ${written!.id}`);
      expect(references).toHaveLength(0);
    } finally {
      job.release();
    }
  });
});
