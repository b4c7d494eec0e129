import type { SessionResponse } from '@nestegg/contract';
import type { Member } from '@nestegg/db';
import { ForbiddenError } from '../../lib/errors.js';
import { toMemberResponse } from './member.view.js';
import type { SessionStore } from './session.store.js';

export class AccountSuspendedError extends ForbiddenError {
  constructor() {
    super('ACCOUNT_SUSPENDED', 'This account is suspended. Contact support.');
  }
}

/** Opens a session after a successful login (password or identity provider): the one path to a token. */
export async function openSession(
  sessions: SessionStore,
  member: Member,
  rememberMe: boolean,
): Promise<SessionResponse> {
  if (member.status === 'SUSPENDED') throw new AccountSuspendedError();
  const { token, expiresAt } = await sessions.create(
    { memberId: member.id, displayName: member.displayName, plan: member.plan, role: member.role },
    rememberMe,
  );
  return { token, expiresAt: expiresAt.toISOString(), member: toMemberResponse(member) };
}
