/**
 * Which posts and comments show an image is kept by database triggers (migration
 * `board_image_references`), whatever writes the posts: here plain SQL, as the posts routes are another
 * module. An image nothing shows any more is stamped `unreferenced_since` for the worker's clean-up.
 */
import { boardImage, comment, commentImage, post, postImage } from '@nestegg/db';
import { eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { describe, expect } from 'vitest';
import { bodyOf } from '../../../test/client.js';
import { type Caller, test } from '../../../test/fixtures.js';

async function uploadedUrl(caller: Caller, colour = '#225588'): Promise<{ url: string; id: string }> {
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: colour } })
    .png()
    .toBuffer();
  const file = new File([new Uint8Array(png)], 'x.png', { type: 'image/png' });
  const { url } = bodyOf(await caller.api.board.uploadImage({ body: { file } }), 201);
  return { url, id: url.slice(-16) };
}

async function writePost(app: FastifyInstance, memberId: number, body: string): Promise<number> {
  const [row] = await app.db
    .insert(post)
    .values({ memberId, category: 'community', title: 'With pictures', body })
    .returning({ id: post.id });
  return row!.id;
}

const referencesOfPost = async (app: FastifyInstance, postId: number) =>
  (await app.db.select().from(postImage).where(eq(postImage.postId, postId))).map((row) => row.imageId).sort();

/** For each image: whether it is stamped unreferenced. */
async function unreferenced(app: FastifyInstance, ids: string[]): Promise<Record<string, boolean>> {
  const rows = await app.db
    .select({ id: boardImage.id, since: boardImage.unreferencedSince })
    .from(boardImage)
    .where(inArray(boardImage.id, ids));
  return Object.fromEntries(rows.map((row) => [row.id, row.since !== null]));
}

describe('board image references', () => {
  test('a new upload is unreferenced; a post naming its URL marks it, other text does not', async ({
    app,
    free,
    other,
  }) => {
    const [a, b, c] = [await uploadedUrl(free), await uploadedUrl(free), await uploadedUrl(free)];
    expect(await unreferenced(app, [a.id, b.id, c.id])).toEqual({ [a.id]: true, [b.id]: true, [c.id]: true });

    // Absolute and relative URLs, twice the same one, a longer id, an unknown id: two images shown.
    const body = `![a](${a.url}) and ![b](/api/images/${b.id}) again ${a.url} /api/images/${c.id}x /api/images/ZZZZZZZZZZZZZZZZ`;
    const postId = await writePost(app, other.id, body);

    expect(await referencesOfPost(app, postId)).toEqual([a.id, b.id].sort());
    const [link] = await app.db.select().from(postImage).where(eq(postImage.imageId, a.id));
    expect(link).toMatchObject({ memberId: other.id, postId });
    expect(await unreferenced(app, [a.id, b.id, c.id])).toEqual({ [a.id]: false, [b.id]: false, [c.id]: true });
  });

  test('editing a body moves the references; votes and flags leave them alone', async ({ app, free }) => {
    const [a, b] = [await uploadedUrl(free), await uploadedUrl(free)];
    const postId = await writePost(app, free.id, `${a.url}`);
    await app.db
      .update(post)
      .set({ body: `now only ${b.url}` })
      .where(eq(post.id, postId));
    expect(await referencesOfPost(app, postId)).toEqual([b.id]);
    expect(await unreferenced(app, [a.id, b.id])).toEqual({ [a.id]: true, [b.id]: false });

    await app.db.update(post).set({ upCount: 3, notice: true }).where(eq(post.id, postId));
    expect(await referencesOfPost(app, postId)).toEqual([b.id]);
    await app.db.update(post).set({ body: 'no pictures' }).where(eq(post.id, postId));
    expect(await referencesOfPost(app, postId)).toEqual([]);
    expect(await unreferenced(app, [b.id])).toEqual({ [b.id]: true });
  });

  test('an image stays referenced while any post or comment shows it', async ({ app, free, other }) => {
    const shared = await uploadedUrl(free);
    const first = await writePost(app, free.id, shared.url);
    const second = await writePost(app, other.id, `me too: ${shared.url}`);
    const [reply] = await app.db
      .insert(comment)
      .values({ postId: first, memberId: other.id, body: `look ${shared.url}` })
      .returning({ id: comment.id });
    expect(await app.db.select().from(commentImage).where(eq(commentImage.commentId, reply!.id))).toEqual([
      { memberId: other.id, commentId: reply!.id, imageId: shared.id },
    ]);

    await app.db.delete(post).where(eq(post.id, second));
    expect(await unreferenced(app, [shared.id])).toEqual({ [shared.id]: false });
    await app.db.update(post).set({ body: 'edited away' }).where(eq(post.id, first));
    expect(await unreferenced(app, [shared.id])).toEqual({ [shared.id]: false }); // the comment still shows it
    await app.db.delete(post).where(eq(post.id, first)); // its comment goes with it
    expect(await unreferenced(app, [shared.id])).toEqual({ [shared.id]: true });
  });

  test('many posts in one statement are tracked in one pass', async ({ app, free }) => {
    const images = await Promise.all([uploadedUrl(free), uploadedUrl(free), uploadedUrl(free)]);
    const rows = await app.db
      .insert(post)
      .values(images.map((image) => ({ memberId: free.id, category: 'tips' as const, title: 't', body: image.url })))
      .returning({ id: post.id });
    const links = await app.db
      .select()
      .from(postImage)
      .where(
        inArray(
          postImage.postId,
          rows.map((row) => row.id),
        ),
      );
    expect(links.map((link) => link.imageId).sort()).toEqual(images.map((image) => image.id).sort());
    await app.db.delete(post).where(
      inArray(
        post.id,
        rows.map((row) => row.id),
      ),
    );
    expect(
      Object.values(
        await unreferenced(
          app,
          images.map((image) => image.id),
        ),
      ),
    ).toEqual([true, true, true]);
  });

  test('a reference written concurrently with the removal of the last other one keeps the image', async ({
    app,
    free,
    other,
  }) => {
    const image = await uploadedUrl(free);
    const firstPost = await writePost(app, free.id, image.url);
    const writer = await app.sql.reserve();
    try {
      await writer`begin`;
      await writer`insert into post (member_id, category, title, body)
                   values (${other.id}, 'saving', 'Concurrent', ${image.url})`;
      // Deleting the only committed reference waits for the writer instead of stamping the image.
      const deleting = app.db.delete(post).where(eq(post.id, firstPost));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await writer`commit`;
      await deleting;
    } finally {
      writer.release();
    }
    expect(await unreferenced(app, [image.id])).toEqual({ [image.id]: false });
  });
});
