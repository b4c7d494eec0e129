import { type DbOrTx, member } from '@nestegg/db';
import { and, asc, eq } from 'drizzle-orm';
import { ConflictError } from '../../../lib/errors.js';

/**
 * Refuses to demote, suspend or delete the last active administrator. The active admins' rows are locked
 * in id order first, so two admins demoting or deleting each other at once are serialised (the second
 * sees one admin left) without deadlocking; members who are not admins skip the lock.
 */
export async function assertAnotherActiveAdminRemains(tx: DbOrTx, memberId: number): Promise<void> {
  const [target] = await tx
    .select({ role: member.role, status: member.status })
    .from(member)
    .where(eq(member.id, memberId));
  if (target?.role !== 'ADMIN' || target.status !== 'ACTIVE') return;
  const admins = await tx
    .select({ id: member.id })
    .from(member)
    .where(and(eq(member.role, 'ADMIN'), eq(member.status, 'ACTIVE')))
    .orderBy(asc(member.id))
    .for('update');
  if (admins.some((admin) => admin.id === memberId) && admins.length <= 1) {
    throw new ConflictError('LAST_ADMIN', 'At least one active administrator must remain.');
  }
}
