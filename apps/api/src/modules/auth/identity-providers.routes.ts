import type { Member } from '@nestegg/db';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { FailureLimiter, PROVIDER_SIGNIN_FAILURES } from './failure-limiter.js';
import type { AuthHandlers } from './handlers.js';
import {
  findOrCreateMember,
  type IdentityProvider,
  IdTokenVerifier,
  InvalidIdTokenError,
  providerConfig,
  type SignInProfile,
  type VerifiedIdentity,
} from './identity-providers.js';
import { openSession } from './session.issue.js';

/** Provider sign-ins come from the mobile app, which keeps the member signed in: the 30-day session. */
const PROVIDER_SESSIONS_REMEMBER_ME = true;

export function identityProviderHandlers(
  app: FastifyInstance,
): AuthHandlers<'idpOneLogin' | 'idpTwoLogin' | 'idpOneClientId'> {
  // One verifier (and so one cached remote key set) per provider for the life of the app.
  const verifiers: Record<IdentityProvider, IdTokenVerifier> = {
    IDPONE: new IdTokenVerifier('IDPONE', providerConfig(app.env, 'IDPONE'), app.log),
    IDPTWO: new IdTokenVerifier('IDPTWO', providerConfig(app.env, 'IDPTWO'), app.log),
  };
  const limiter = new FailureLimiter(app.counters, PROVIDER_SIGNIN_FAILURES, app.log);

  async function signIn(provider: IdentityProvider, token: string, request: FastifyRequest, profile: SignInProfile) {
    const verifier = verifiers[provider];
    verifier.assertConfigured();
    await limiter.assertAllowed(request.ip);
    let identity: VerifiedIdentity;
    try {
      identity = await verifier.verify(token);
    } catch (error) {
      if (error instanceof InvalidIdTokenError) await limiter.recordFailure(request.ip);
      throw error;
    }
    await limiter.clear(request.ip);
    const found: Member = await findOrCreateMember(app.db, provider, identity, profile);
    return openSession(app, found, PROVIDER_SESSIONS_REMEMBER_ME);
  }

  return {
    idpOneLogin: async ({ body, request }) => ({
      status: 200,
      body: await signIn('IDPONE', body.idToken, request, {}),
    }),
    idpTwoLogin: async ({ body, request }) => ({
      status: 200,
      body: await signIn('IDPTWO', body.identityToken, request, { displayName: body.displayName }),
    }),
    // Null unless sign-in would work: the app hides the button instead of offering a 503.
    idpOneClientId: async () => ({
      status: 200,
      body: { clientId: verifiers.IDPONE.config?.clientId ?? null },
    }),
  };
}
