import {
  ADMIN_SEARCH_COUNT_LIMIT,
  type AdminMember,
  type AdminMemberListQuery,
  type AdminMemberPage,
  MAX_OFFSET_ROWS,
} from '@nestegg/contract';
import {
  type Database,
  type DbOrTx,
  type MemberPlan,
  type MemberRole,
  type MemberStatus,
  member,
  memberCount,
  rawSelect,
} from '@nestegg/db';
import { and, desc, eq, ilike, lt, or, type SQL, sql } from 'drizzle-orm';
import { decodeCursor, encodeCursor } from '../../../lib/cursor.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../../lib/errors.js';
import { pgErrorCode, UNIQUE_VIOLATION } from '../../../lib/pg-error.js';
import { likeContains } from '../../../lib/sql-like.js';
import type { AccountDeletion, PasswordHasher, SessionStore } from '../../members/auth/index.js';
import {
  assertAnotherActiveAdminRemains,
  assertStrongPassword,
  columnsToAdminMember,
  type MemberSummaryColumns,
  type MemberSummaryRow,
  memberSummarySelection,
  toAdminMember,
} from '../../members/auth/index.js';

/** What the member operations need: the database, the session store, and the one deletion path. */
export interface MembersDeps {
  db: Database;
  /** Reads a replica may serve when the request's route allows it (decision DB20); the primary otherwise. */
  reader: Database;
  sessions: SessionStore;
  accountDeletion: AccountDeletion;
  hasher: PasswordHasher;
}

/** Member admin rule: an admin cannot change or delete their own account through these operations. */
function refuseSelf(actorId: number, memberId: number): void {
  if (actorId === memberId) {
    throw new ForbiddenError('CANNOT_MODIFY_SELF', 'Administrators cannot change or delete their own account here.');
  }
}

interface MemberChange {
  row: MemberSummaryRow | undefined;
  /** Sessions whose cached copies must be dropped once the transaction has committed. */
  tokenHashes: string[];
}

/**
 * Runs a member change and its session change in one transaction, then drops the cached copies of the
 * touched sessions: dropping them before the commit would let a concurrent request cache the old values
 * again from the not yet committed backup.
 */
async function changeMember(
  deps: Pick<MembersDeps, 'db' | 'sessions'>,
  change: (tx: DbOrTx) => Promise<MemberChange>,
): Promise<AdminMember> {
  const { row, tokenHashes } = await deps.db.transaction(async (tx) => {
    const changed = await change(tx);
    if (!changed.row) throw new NotFoundError('member');
    return changed;
  });
  await deps.sessions.forgetCached(tokenHashes);
  return toAdminMember(row!);
}

/**
 * The admin list's statements, built once: the page (offset or keyset on id, with and without a search; one
 * row more than the page, to know whether another follows; its rows read raw, decision P27) and the total
 * (the maintained member count, or a search's matches counted up to ADMIN_SEARCH_COUNT_LIMIT + 1).
 */
function prepareListQueries(db: Database) {
  const matching = or(
    ilike(member.email, sql.placeholder('pattern')),
    ilike(member.displayName, sql.placeholder('pattern')),
  );
  const before = lt(member.id, sql.placeholder('before'));
  const page = (where: SQL | undefined) =>
    rawSelect<MemberSummaryColumns>(
      db,
      db
        .select(memberSummarySelection)
        .from(member)
        .where(where)
        .orderBy(desc(member.id))
        .limit(sql.placeholder('limit'))
        .offset(sql.placeholder('offset')),
    );
  const matches = db
    .select({ one: sql`1` })
    .from(member)
    .where(matching)
    .limit(ADMIN_SEARCH_COUNT_LIMIT + 1)
    .as('matches');
  return {
    pageAll: page(undefined),
    pageAllBefore: page(before),
    pageMatching: page(matching),
    pageMatchingBefore: page(and(matching, before)),
    totalAll: db.select({ total: memberCount.members }).from(memberCount).prepare('admin_members_total'),
    totalMatching: db
      .select({ total: sql<number>`count(*)::int` })
      .from(matches)
      .prepare('admin_members_total_matching'),
  };
}

/** Member administration: the list, plan, role, status and delete of the admin area, and the first admin. */
export class MemberAdministration {
  private readonly listQueries;

  constructor(private readonly deps: MembersDeps) {
    this.listQueries = prepareListQueries(deps.reader);
  }

  /**
   * One page of members, newest first; `q` matches e-mail or display name case-insensitively. Two statements
   * in parallel: the page, by offset (at most MAX_OFFSET_ROWS deep) or after a cursor (keyset on id), and the
   * total: the maintained member count, or a search's matches counted up to ADMIN_SEARCH_COUNT_LIMIT.
   */
  async list(query: AdminMemberListQuery): Promise<AdminMemberPage> {
    const { size } = query;
    const q = query.q?.trim();
    const before = query.cursor === undefined ? undefined : decodeCursor(query.cursor, ['number'] as const)[0];
    const page = before === undefined ? query.page : 1;
    if (before === undefined && page * size > MAX_OFFSET_ROWS) {
      throw new BadRequestError('OFFSET_TOO_DEEP', `Pages deeper than ${MAX_OFFSET_ROWS} rows are read with cursor.`);
    }
    const window = { limit: size + 1, offset: before === undefined ? (page - 1) * size : 0 };
    const queries = this.listQueries;
    const pattern = q ? likeContains(q) : undefined;
    const [rows, [counted]] = await Promise.all([
      pattern === undefined
        ? before === undefined
          ? queries.pageAll.execute(window)
          : queries.pageAllBefore.execute({ ...window, before })
        : before === undefined
          ? queries.pageMatching.execute({ ...window, pattern })
          : queries.pageMatchingBefore.execute({ ...window, pattern, before }),
      pattern === undefined ? queries.totalAll.execute() : queries.totalMatching.execute({ pattern }),
    ]);
    const items = rows.slice(0, size);
    const last = items[items.length - 1];
    const total = Number(counted?.total ?? 0);
    const bounded = pattern !== undefined && total > ADMIN_SEARCH_COUNT_LIMIT;
    return {
      items: items.map(columnsToAdminMember),
      page,
      size,
      total: bounded ? ADMIN_SEARCH_COUNT_LIMIT : total,
      totalIsLowerBound: bounded,
      nextCursor: rows.length > size && last ? encodeCursor([last.id]) : null,
    };
  }

  /**
   * Sets a plan permanently: no expiry, subscription info cleared. The member's live sessions see the
   * new plan at once.
   */
  setPlan(actorId: number, memberId: number, plan: MemberPlan): Promise<AdminMember> {
    refuseSelf(actorId, memberId);
    return changeMember(this.deps, async (tx) => {
      const [row] = await tx
        .update(member)
        .set({ plan, planExpiresAt: null, planProduct: null, planAutoRenew: false })
        .where(eq(member.id, memberId))
        .returning(memberSummarySelection);
      return { row, tokenHashes: row ? await this.deps.sessions.updateMember(memberId, { plan }, tx) : [] };
    });
  }

  /** Changes the role; the member's live sessions carry the new role at once. */
  setRole(actorId: number, memberId: number, role: MemberRole): Promise<AdminMember> {
    refuseSelf(actorId, memberId);
    return changeMember(this.deps, async (tx) => {
      if (role !== 'ADMIN') await assertAnotherActiveAdminRemains(tx, memberId);
      const [row] = await tx
        .update(member)
        .set({ role })
        .where(eq(member.id, memberId))
        .returning(memberSummarySelection);
      return { row, tokenHashes: row ? await this.deps.sessions.updateMember(memberId, { role }, tx) : [] };
    });
  }

  /** Suspends (revoking every session; the data stays) or reactivates a member. */
  setStatus(actorId: number, memberId: number, status: MemberStatus): Promise<AdminMember> {
    refuseSelf(actorId, memberId);
    return changeMember(this.deps, async (tx) => {
      const [row] = await tx
        .update(member)
        .set({ status })
        .where(eq(member.id, memberId))
        .returning(memberSummarySelection);
      const revoke = row !== undefined && status === 'SUSPENDED';
      return { row, tokenHashes: revoke ? await this.deps.sessions.destroyAllOf(memberId, { tx }) : [] };
    });
  }

  /** Deletes a member and all of their data (the same path as withdrawal). */
  async delete(actorId: number, memberId: number): Promise<void> {
    refuseSelf(actorId, memberId);
    await this.deps.accountDeletion.deleteMemberCompletely(memberId);
  }

  /**
   * First admin (command line only): gives the account with this e-mail the ADMIN role; its live
   * sessions become admin sessions at once. Throws `NotFoundError` when no account has that e-mail.
   */
  promoteToAdmin(email: string): Promise<AdminMember> {
    return changeMember(this.deps, async (tx) => {
      const [row] = await tx
        .update(member)
        .set({ role: 'ADMIN' })
        .where(sql`lower(${member.email}) = ${email.trim().toLowerCase()}`)
        .returning(memberSummarySelection);
      return { row, tokenHashes: row ? await this.deps.sessions.updateMember(row.id, { role: 'ADMIN' }, tx) : [] };
    });
  }

  /**
   * Creates a LOCAL account with the ADMIN role (e-mail treated as verified: the operator typed it).
   * Throws `ConflictError('EMAIL_TAKEN')` when an account already uses the e-mail: promote it instead.
   */
  async createAdmin(input: NewAdmin): Promise<AdminMember> {
    assertStrongPassword(input.password, [input.email, input.displayName]);
    const passwordHash = await this.deps.hasher.hash(input.password);
    try {
      const [row] = await this.deps.db
        .insert(member)
        .values({
          email: input.email.trim().toLowerCase(),
          emailVerified: true,
          passwordHash,
          displayName: input.displayName.trim(),
          role: 'ADMIN',
          provider: 'LOCAL',
        })
        .returning(memberSummarySelection);
      return toAdminMember(row!);
    } catch (error) {
      if (pgErrorCode(error) === UNIQUE_VIOLATION) {
        throw new ConflictError('EMAIL_TAKEN', 'An account already uses this e-mail; promote it instead.');
      }
      throw error;
    }
  }
}

export interface NewAdmin {
  email: string;
  displayName: string;
  password: string;
}
