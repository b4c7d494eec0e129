import { createHash } from 'node:crypto';
import { member } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { test } from '../../../test/fixtures.js';
import { clearBoard, insertComments, insertPost, pictureDataUrl } from '../../board/posts/board.fixture.js';

const storedPicture = async (app: FastifyInstance, memberId: number) => {
  const [row] = await app.db.select({ picture: member.profileImage }).from(member).where(eq(member.id, memberId));
  return row!.picture!;
};

const pathOf = (url: string) => new URL(url).pathname;

describe('author avatars', () => {
  test("a custom picture is an absolute, versioned URL under PUBLIC_URL, never the picture's data", async ({
    app,
    free,
    anonymous,
  }) => {
    await clearBoard(app);
    bodyOf(await free.api.auth.updateProfileImage({ body: { dataUrl: await pictureDataUrl() } }), 200);
    const stored = await storedPicture(app, free.id);
    const hash = createHash('md5').update(stored).digest('hex');
    const expected = `http://nestegg.test/api/auth/avatars/${free.id}-${hash}`;
    const created = await insertPost(app, free.id);
    await insertComments(app, free.id, created.id, [{}]);
    const list = await anonymous.board.listPosts({ query: {} });
    expect(bodyOf(list, 200).items[0]!.author.avatarUrl).toBe(expected);
    expect(JSON.stringify(list.body)).not.toContain('data:image');
    expect(bodyOf(await anonymous.board.getPost({ params: { id: created.id } }), 200).author.avatarUrl).toBe(expected);
    const comments = bodyOf(await anonymous.board.listComments({ params: { id: created.id }, query: {} }), 200);
    expect(comments.items[0]!.author.avatarUrl).toBe(expected);
  });

  test('the picture URL serves the stored image publicly, cached for a year, with its type and nosniff', async ({
    app,
    free,
  }) => {
    bodyOf(await free.api.auth.updateProfileImage({ body: { dataUrl: await pictureDataUrl('#102030') } }), 200);
    const created = await insertPost(app, free.id);
    const url = bodyOf(await free.api.board.getPost({ params: { id: created.id } }), 200).author.avatarUrl!;
    const response = await app.inject({ method: 'GET', url: pathOf(url) });
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({
      'content-type': 'image/png',
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      'cross-origin-resource-policy': 'cross-origin',
    });
    const stored = await storedPicture(app, free.id);
    expect(response.rawPayload.equals(Buffer.from(stored.split(',')[1]!, 'base64'))).toBe(true);
  });

  test('a new picture gets a new URL; the old one (and a removed picture) answers 404', async ({ app, free }) => {
    const created = await insertPost(app, free.id);
    const avatarOf = async () =>
      bodyOf(await free.api.board.getPost({ params: { id: created.id } }), 200).author.avatarUrl;
    bodyOf(await free.api.auth.updateProfileImage({ body: { dataUrl: await pictureDataUrl('#111111') } }), 200);
    const first = (await avatarOf())!;
    bodyOf(await free.api.auth.updateProfileImage({ body: { dataUrl: await pictureDataUrl('#eeeeee') } }), 200);
    const second = (await avatarOf())!;
    expect(second).not.toBe(first);
    expect((await app.inject({ method: 'GET', url: pathOf(first) })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: pathOf(second) })).statusCode).toBe(200);
    bodyOf(await free.api.auth.updateProfileImage({ body: { dataUrl: '' } }), 200);
    expect(await avatarOf()).toBeNull();
    const gone = await app.inject({ method: 'GET', url: pathOf(second) });
    expect(gone.statusCode).toBe(404);
    expect(gone.headers['cache-control']).toBe('no-store');
  });

  test('without a custom picture the provider picture is the avatar', async ({ app, free }) => {
    const providerPicture = 'https://idp.example/picture/123.jpg';
    await app.db.update(member).set({ idponePicture: providerPicture }).where(eq(member.id, free.id));
    const created = await insertPost(app, free.id);
    const author = bodyOf(await free.api.board.getPost({ params: { id: created.id } }), 200).author;
    expect(author.avatarUrl).toBe(providerPicture);
    bodyOf(await free.api.auth.updateProfileImage({ body: { dataUrl: await pictureDataUrl() } }), 200);
    const custom = bodyOf(await free.api.board.getPost({ params: { id: created.id } }), 200).author;
    expect(custom.avatarUrl).toMatch(/^http:\/\/nestegg\.test\/api\/auth\/avatars\//);
  });

  test('keys that are not avatar keys are 400; unknown members 404', async ({ anonymous }) => {
    problemOf(await anonymous.auth.avatar({ params: { key: 'x.png' } }), 400, 'VALIDATION_FAILED');
    problemOf(await anonymous.auth.avatar({ params: { key: `999999-${'0'.repeat(32)}` } }), 404, 'NOT_FOUND');
  });
});
