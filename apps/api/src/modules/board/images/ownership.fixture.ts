import { boardImage } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { registerOwnedResource } from '../../../test/ownership/registry.js';

/**
 * A member's board image, named by `GET /api/images/:id`: public, so another member reads it (200) and
 * nothing changes it. The upload names no resource (it creates one).
 */
registerOwnedResource({
  name: 'board image',
  routes: ['board.getImage'],
  readableByOthers: true,
  async make(app, owner) {
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#abcdef' } })
      .png()
      .toBuffer();
    const [row] = await app.db
      .insert(boardImage)
      .values({ memberId: owner.id, contentType: 'image/png', bytes: png, byteSize: png.length })
      .returning({ id: boardImage.id });
    return row!.id;
  },
  snapshot: async (app, id) =>
    app.db
      .select()
      .from(boardImage)
      .where(eq(boardImage.id, String(id))),
});
