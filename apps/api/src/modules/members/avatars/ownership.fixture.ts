/** A member's own picture, named by `GET /api/auth/avatars/:key`: public, read by anyone, changed by nobody. */
import { member } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import { registerOwnedResource } from '../../../test/ownership/registry.js';
import { pictureDataUrl } from '../../board/posts/board.fixture.js';
import { avatarKeyOf } from './avatar-key.js';

registerOwnedResource({
  name: 'member picture',
  routes: ['auth.avatar'],
  readableByOthers: true,
  async make(app, owner) {
    const [row] = await app.db
      .update(member)
      .set({ profileImage: await pictureDataUrl() })
      .where(eq(member.id, owner.id))
      .returning({ hash: member.profileImageHash });
    return avatarKeyOf(owner.id, row!.hash!);
  },
  snapshot: async (app, key) =>
    app.db
      .select({ picture: member.profileImage, hash: member.profileImageHash })
      .from(member)
      .where(eq(member.id, Number(String(key).split('-')[0]))),
});
