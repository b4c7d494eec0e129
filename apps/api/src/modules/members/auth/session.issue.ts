import type { SessionResponse } from '@nestegg/contract';
import type { Member } from '@nestegg/db';
import { ForbiddenError, UnauthenticatedError } from '../../../lib/errors.js';
import { toMemberResponse } from './member.view.js';
import type { SessionStore } from './session.store.js';

export class AccountSuspendedError extends ForbiddenError {
  constructor() {
    super('ACCOUNT_SUSPENDED', 'This account is suspended. Contact support.');
  }
}

const WRONG_CREDENTIALS = 'The e-mail or password is wrong.';

export interface SessionRequest {
  rememberMe: boolean;
  userAgent?: string | undefined;
  /** For a password login: the hash that was verified; a change committed since then refuses the session. */
  verifiedPasswordHash?: string | null;
}

function guardFor(request: SessionRequest) {
  return (locked: Member) => {
    if (locked.status === 'SUSPENDED') throw new AccountSuspendedError();
    const passwordChanged =
      request.verifiedPasswordHash !== undefined && locked.passwordHash !== request.verifiedPasswordHash;
    if (passwordChanged) throw new UnauthenticatedError(WRONG_CREDENTIALS);
  };
}

/**
 * Opens a session after a successful login (password or identity provider): the one path to a token.
 * The member's state is checked as of the session's own commit (see `SessionStore.open`).
 */
export async function openSession(
  sessions: SessionStore,
  memberId: number,
  request: SessionRequest,
): Promise<SessionResponse> {
  const opened = await sessions.open(memberId, {
    rememberMe: request.rememberMe,
    userAgent: request.userAgent,
    guard: guardFor(request),
  });
  if (!opened) throw new UnauthenticatedError(WRONG_CREDENTIALS);
  return { token: opened.token, expiresAt: opened.expiresAt.toISOString(), member: toMemberResponse(opened.member) };
}
