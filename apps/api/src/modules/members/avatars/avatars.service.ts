import { type Database, member } from '@nestegg/db';
import { eq, sql } from 'drizzle-orm';
import { NotFoundError } from '../../../lib/errors.js';

/** A member's stored picture, ready to send. */
export interface Avatar {
  contentType: string;
  bytes: Buffer;
}

const KEY = /^([1-9]\d{0,9})-([0-9a-f]{32})$/;
const DATA_URL = /^data:(image\/(?:png|jpeg|gif|webp));base64,(.*)$/s;

/**
 * Serves members' own pictures (stored as data URLs by the profile) at versioned public URLs. A key whose
 * hash is not the current picture's answers 404: the URL of a picture never changes what it shows.
 */
export class AvatarsService {
  private readonly pictureById;

  constructor(deps: { db: Database }) {
    this.pictureById = deps.db
      .select({ picture: member.profileImage, hash: member.profileImageHash })
      .from(member)
      .where(eq(member.id, sql.placeholder('id')))
      .prepare('avatar_picture_by_member');
  }

  async picture(key: string): Promise<Avatar> {
    const [, id, hash] = KEY.exec(key) ?? [];
    const memberId = Number(id);
    if (!hash || !Number.isSafeInteger(memberId) || memberId > 2_147_483_647) throw new NotFoundError('picture');
    const [row] = await this.pictureById.execute({ id: memberId });
    if (!row?.picture || row.hash !== hash) throw new NotFoundError('picture');
    const [, contentType, base64] = DATA_URL.exec(row.picture) ?? [];
    if (!contentType || base64 === undefined) throw new NotFoundError('picture');
    return { contentType, bytes: Buffer.from(base64, 'base64') };
  }
}
