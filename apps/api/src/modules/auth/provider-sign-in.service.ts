import type { SessionResponse } from '@nestegg/contract';
import type { Database } from '@nestegg/db';
import type { FastifyBaseLogger } from 'fastify';
import type { CounterStore } from '../../lib/counter-store.js';
import { FailureLimiter, PROVIDER_SIGNIN_FAILURES } from './failure-limiter.js';
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
  counters: CounterStore;
  logger: FastifyBaseLogger;
  providers: Record<IdentityProvider, ProviderConfig | null>;
}

/** Sign-in with identity provider one or two: verify the token, find or link the member, open a session. */
export class ProviderSignInService {
  /** One verifier (and so one cached remote key set) per provider for the life of the process. */
  private readonly verifiers: Record<IdentityProvider, IdTokenVerifier>;
  private readonly limiter: FailureLimiter;

  constructor(private readonly deps: ProviderSignInDeps) {
    this.verifiers = {
      IDPONE: new IdTokenVerifier('IDPONE', deps.providers.IDPONE, deps.logger),
      IDPTWO: new IdTokenVerifier('IDPTWO', deps.providers.IDPTWO, deps.logger),
    };
    this.limiter = new FailureLimiter(deps.counters, PROVIDER_SIGNIN_FAILURES, deps.logger);
  }

  /** Null unless sign-in would work: the app hides the button instead of offering a 503. */
  clientIdOf(provider: IdentityProvider): string | null {
    return this.deps.providers[provider]?.clientId ?? null;
  }

  async signIn(
    provider: IdentityProvider,
    token: string,
    ip: string,
    profile: SignInProfile,
  ): Promise<SessionResponse> {
    const verifier = this.verifiers[provider];
    verifier.assertConfigured();
    await this.limiter.assertAllowed(ip);
    const identity = await this.verifyCounting(verifier, token, ip);
    await this.limiter.clear(ip);
    const found = await findOrCreateMember(this.deps.db, provider, identity, profile);
    return openSession(this.deps.sessions, found, PROVIDER_SESSIONS_REMEMBER_ME);
  }

  private async verifyCounting(verifier: IdTokenVerifier, token: string, ip: string): Promise<VerifiedIdentity> {
    try {
      return await verifier.verify(token);
    } catch (error) {
      if (error instanceof InvalidIdTokenError) await this.limiter.recordFailure(ip);
      throw error;
    }
  }
}
