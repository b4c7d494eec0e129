import { type Member, member } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { UnauthenticatedError } from '../../lib/errors.js';
import { validateProfileImage } from './profile-image.js';

export class ProfileService {
  constructor(private readonly app: FastifyInstance) {}

  /** Read fresh from the database, so the profile reflects changes without a new login. */
  async get(memberId: number): Promise<Member> {
    const [found] = await this.app.db.select().from(member).where(eq(member.id, memberId));
    if (!found) throw new UnauthenticatedError();
    return found;
  }

  /** Updates the sign-up information; the member's sessions carry the new display name at once. */
  async update(memberId: number, changes: { displayName: string }): Promise<Member> {
    const { updated, tokenHashes } = await this.app.db.transaction(async (tx) => {
      const [row] = await tx.update(member).set(changes).where(eq(member.id, memberId)).returning();
      if (!row) throw new UnauthenticatedError();
      return { updated: row, tokenHashes: await this.app.sessions.updateMember(memberId, changes, tx) };
    });
    await this.app.sessions.forgetCached(tokenHashes);
    return updated;
  }

  async setImage(memberId: number, dataUrl: string): Promise<Member> {
    const profileImage = validateProfileImage(dataUrl, this.app.env.PROFILE_IMAGE_MAX_BYTES);
    const [updated] = await this.app.db.update(member).set({ profileImage }).where(eq(member.id, memberId)).returning();
    if (!updated) throw new UnauthenticatedError();
    return updated;
  }
}
