import { REAUTHENTICATION_WINDOW_MINUTES } from '@nestegg/contract';
import type { Clock } from '@nestegg/domain';
import { ForbiddenError } from '../../../lib/errors.js';
import type { ActiveSession } from '../../../lib/session.js';

/** A passed gate (password or fresh provider token) counts this long for sensitive operations. */
export const REAUTHENTICATION_WINDOW_MS = REAUTHENTICATION_WINDOW_MINUTES * 60_000;

/** Until when the session counts as re-authenticated, given when it last passed a gate. */
export function reauthenticatedUntil(reauthenticatedAt: Date): Date {
  return new Date(reauthenticatedAt.getTime() + REAUTHENTICATION_WINDOW_MS);
}

/** Sensitive operations (withdrawal) need a re-authentication in this session within the window. */
export function assertRecentlyReauthenticated(session: ActiveSession, clock: Clock): void {
  const at = session.reauthenticatedAt?.getTime();
  if (at !== undefined && clock.now().getTime() - at <= REAUTHENTICATION_WINDOW_MS) return;
  throw new ForbiddenError(
    'REAUTHENTICATION_REQUIRED',
    'Confirm it is you first: enter your password (or sign in with your provider again), then retry.',
  );
}
