import { SET_PASSWORD_PATH, type SessionResponse } from '@nestegg/contract';
import { type Database, member } from '@nestegg/db';
import type { Clock } from '@nestegg/domain';
import { eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { type AppError, BadRequestError, ForbiddenError } from '../../../lib/errors.js';
import type { AttemptLimits } from './attempt-limits.js';
import {
  findOrCreateMember,
  type IdentityProvider,
  IdTokenVerifier,
  InvalidIdTokenError,
  isFreshIdentity,
  type ProviderConfig,
  type SignInProfile,
  type VerifiedIdentity,
} from './identity-providers.js';
import { REAUTHENTICATION_WINDOW_MS } from './reauthentication.js';
import { openSession } from './session.issue.js';
import type { SessionStore } from './session.store.js';

/** Provider sign-ins come from the mobile app, which keeps the member signed in: the 30-day session. */
const PROVIDER_SESSIONS_REMEMBER_ME = true;

/** Sent with `passwordLoginDisabled` in the answer of the sign-in that turned password login off (M31). */
export const PASSWORD_LOGIN_HINT =
  'Password login is now turned off for this account: this provider proved the e-mail, and the password had been ' +
  `set before anyone proved it, so it was removed and your other sessions ended. To log in with a password again, ` +
  `set a new one with POST ${SET_PASSWORD_PATH} (a fresh token of this provider and the new password).`;

export interface ProviderSignInDeps {
  db: Database;
  sessions: SessionStore;
  limits: AttemptLimits;
  logger: FastifyBaseLogger;
  clock: Clock;
  providers: Record<IdentityProvider, ProviderConfig | null>;
}

/** Sign-in with identity provider one or two: verify the token, find or link the member, open a session. */
export class ProviderSignInService {
  /** One verifier (and so one cached remote key set) per provider for the life of the process. */
  private readonly verifiers: Record<IdentityProvider, IdTokenVerifier>;

  constructor(private readonly deps: ProviderSignInDeps) {
    this.verifiers = {
      IDPONE: new IdTokenVerifier('IDPONE', deps.providers.IDPONE, deps.logger),
      IDPTWO: new IdTokenVerifier('IDPTWO', deps.providers.IDPTWO, deps.logger),
    };
  }

  /** Null unless sign-in would work: the app hides the button instead of offering a 503. */
  clientIdOf(provider: IdentityProvider): string | null {
    return this.deps.providers[provider]?.clientId ?? null;
  }

  async signIn(
    provider: IdentityProvider,
    token: string,
    origin: { ip: string; userAgent?: string | undefined },
    profile: SignInProfile,
  ): Promise<SessionResponse> {
    const verifier = this.verifiers[provider];
    verifier.assertConfigured();
    await this.deps.limits.beginProviderSignIn(origin.ip);
    const identity = await this.verifyCounting(verifier, token, origin.ip);
    await this.deps.limits.providerSignInSucceeded(origin.ip);
    const resolved = await findOrCreateMember(this.deps.db, this.deps.sessions, provider, identity, profile);
    await this.deps.sessions.forgetCached(resolved.revokedTokenHashes);
    const session = await openSession(this.deps.sessions, resolved.member.id, {
      rememberMe: PROVIDER_SESSIONS_REMEMBER_ME,
      userAgent: origin.userAgent,
    });
    return resolved.passwordLoginDisabled
      ? { ...session, passwordLoginDisabled: true, passwordLoginHint: PASSWORD_LOGIN_HINT }
      : session;
  }

  /**
   * Re-authenticates a session of a provider account: a token of the provider the account is linked to,
   * for the same identity, issued within the re-authentication window.
   */
  async reauthenticate(
    session: { memberId: number; tokenHash: string },
    provider: IdentityProvider,
    token: string,
    ip: string,
  ): Promise<Date> {
    await this.proveLinkedIdentity(
      session.memberId,
      provider,
      token,
      ip,
      () =>
        new BadRequestError('VALIDATION_FAILED', 'The provider token is not fresh: sign in with the provider again.'),
    );
    return this.deps.sessions.markReauthenticated(session.tokenHash);
  }

  /**
   * Proves the caller is the person behind the provider identity linked to their account, as sign-in
   * verifies tokens (configured provider, failure limit, signature, issuer, audience, expiry), plus freshness:
   * signed in at the provider within the re-authentication window (`iat`, and `auth_time` when sent; M30).
   * Returns the linked subject. `stale` is the answer to a token that is valid but not fresh.
   */
  async proveLinkedIdentity(
    memberId: number,
    provider: IdentityProvider,
    token: string,
    ip: string,
    stale: () => AppError,
  ): Promise<string> {
    const verifier = this.verifiers[provider];
    verifier.assertConfigured();
    await this.deps.limits.beginProviderSignIn(ip);
    const identity = await this.verifyCounting(verifier, token, ip);
    await this.deps.limits.providerSignInSucceeded(ip);
    if (!isFreshIdentity(identity, this.deps.clock.now(), REAUTHENTICATION_WINDOW_MS)) throw stale();
    const [linked] = await this.deps.db
      .select({ idpone: member.idponeId, idptwo: member.idptwoId })
      .from(member)
      .where(eq(member.id, memberId));
    const subject = provider === 'IDPONE' ? linked?.idpone : linked?.idptwo;
    if (!subject || subject !== identity.subject) {
      throw new ForbiddenError('PROVIDER_MISMATCH', 'This token belongs to another identity than your account.');
    }
    return subject;
  }

  /** A rejected token stays counted; an unreachable provider is not the caller's failure. */
  private async verifyCounting(verifier: IdTokenVerifier, token: string, ip: string): Promise<VerifiedIdentity> {
    try {
      return await verifier.verify(token);
    } catch (error) {
      if (!(error instanceof InvalidIdTokenError)) await this.deps.limits.providerSignInInconclusive(ip);
      throw error;
    }
  }
}
