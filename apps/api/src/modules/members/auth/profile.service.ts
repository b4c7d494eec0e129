import { type Database, type Member, member, rawSelect } from '@nestegg/db';
import { eq, sql } from 'drizzle-orm';
import { UnauthenticatedError } from '../../../lib/errors.js';
import { type MemberResponseColumns, memberResponseSelection } from './member.view.js';
import { profileImageToStore } from './profile-image.js';
import type { SessionStore } from './session.store.js';

export interface ProfileDeps {
  db: Database;
  sessions: SessionStore;
  profileImageMaxBytes: number;
}

export class ProfileService {
  /**
   * Built once (hot path, every profile read): the response's columns only, read raw, so no row is mapped twice
   * and no instant parsed to be formatted again (decision P27).
   */
  private readonly memberById;

  constructor(private readonly deps: ProfileDeps) {
    this.memberById = rawSelect<MemberResponseColumns>(
      deps.db,
      deps.db
        .select(memberResponseSelection)
        .from(member)
        .where(eq(member.id, sql.placeholder('id'))),
    );
  }

  /** Read fresh from the database, so the profile reflects changes without a new login. */
  async get(memberId: number): Promise<MemberResponseColumns> {
    const [found] = await this.memberById.execute({ id: memberId });
    if (!found) throw new UnauthenticatedError();
    return found;
  }

  /** Updates the sign-up information; the member's sessions carry the new display name at once. */
  async update(memberId: number, changes: { displayName: string }): Promise<Member> {
    const { updated, tokenHashes } = await this.deps.db.transaction(async (tx) => {
      const [row] = await tx.update(member).set(changes).where(eq(member.id, memberId)).returning();
      if (!row) throw new UnauthenticatedError();
      return { updated: row, tokenHashes: await this.deps.sessions.updateMember(memberId, changes, tx) };
    });
    await this.deps.sessions.forgetCached(tokenHashes);
    return updated;
  }

  /** Stores a re-encoded copy of the sent image, never the sent bytes; an empty value clears it. */
  async setImage(memberId: number, dataUrl: string): Promise<Member> {
    const profileImage = await profileImageToStore(dataUrl, this.deps.profileImageMaxBytes);
    const [updated] = await this.deps.db
      .update(member)
      .set({ profileImage })
      .where(eq(member.id, memberId))
      .returning();
    if (!updated) throw new UnauthenticatedError();
    return updated;
  }
}
