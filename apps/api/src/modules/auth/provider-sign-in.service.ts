import type { SessionResponse } from '@nestegg/contract';
import type { Database } from '@nestegg/db';
import type { FastifyBaseLogger } from 'fastify';
import type { AttemptLimits } from './attempt-limits.js';
import {
  findOrCreateMember,
  type IdentityProvider,
  IdTokenVerifier,
  InvalidIdTokenError,
  type ProviderConfig,
  type SignInProfile,
  type VerifiedIdentity,
} from './identity-providers.js';
import { openSession } from './session.issue.js';
import type { SessionStore } from './session.store.js';

/** Provider sign-ins come from the mobile app, which keeps the member signed in: the 30-day session. */
const PROVIDER_SESSIONS_REMEMBER_ME = true;

export interface ProviderSignInDeps {
  db: Database;
  sessions: SessionStore;
  limits: AttemptLimits;
  logger: FastifyBaseLogger;
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
    return openSession(this.deps.sessions, resolved.member.id, {
      rememberMe: PROVIDER_SESSIONS_REMEMBER_ME,
      userAgent: origin.userAgent,
    });
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
