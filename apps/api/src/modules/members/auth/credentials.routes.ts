import type { FastifyInstance } from 'fastify';
import { ForbiddenError } from '../../../lib/errors.js';
import { sessionOf } from '../../../lib/session.js';
import type { AuthHandlers } from './handlers.js';
import { reauthenticatedUntil } from './reauthentication.js';

const SIGNUPS_PER_HOUR_PER_IP = 5;

export function credentialsHandlers(
  app: FastifyInstance,
): AuthHandlers<'signup' | 'login' | 'logout' | 'changePassword' | 'setPassword' | 'verifyPassword' | 'signupEnabled'> {
  const { credentials, providerSignIn, sessions, settings } = app.services;
  return {
    signup: {
      // Every attempt counts, honeypot ones included; the IP comes from the trusted-proxy setting.
      hooks: {
        onRequest: app.rateLimit({
          max: SIGNUPS_PER_HOUR_PER_IP,
          timeWindow: '1 hour',
          keyGenerator: (request) => `signup:${request.ip}`,
        }),
      },
      handler: async ({ body }) => ({ status: 201, body: await credentials.signup(body) }),
    },
    login: async ({ body, request }) => ({
      status: 200,
      body: await credentials.login(body, { ip: request.ip, userAgent: request.headers['user-agent'] }),
    }),
    logout: async ({ request }) => {
      if (request.sessionToken) await sessions.destroy(request.sessionToken);
      return { status: 204, body: undefined };
    },
    changePassword: async ({ body, request }) => {
      const session = sessionOf(request);
      await credentials.changePassword(session.memberId, body.currentPassword, body.newPassword, session.tokenHash);
      return { status: 204, body: undefined };
    },
    // Decision M30: the account's own state first (no provider call for a request that cannot succeed), then
    // the fresh token of the linked identity, then the password itself (strength, hash, conditional update).
    setPassword: async ({ body, request }) => {
      const session = sessionOf(request);
      await credentials.assertCanSetPassword(session.memberId);
      const subject = await providerSignIn.proveLinkedIdentity(
        session.memberId,
        body.provider,
        body.token,
        request.ip,
        () =>
          new ForbiddenError(
            'REAUTHENTICATION_REQUIRED',
            'The provider token is not fresh: sign in with the provider again, then retry with the new token.',
          ),
      );
      await credentials.setPassword(session.memberId, { provider: body.provider, subject }, body.newPassword);
      return { status: 204, body: undefined };
    },
    verifyPassword: async ({ body, request }) => {
      const session = sessionOf(request);
      const at = await credentials.verifyPassword(session.memberId, body.password, session.tokenHash);
      return { status: 200, body: { verified: true, reauthenticatedUntil: reauthenticatedUntil(at).toISOString() } };
    },
    signupEnabled: async () => ({ status: 200, body: { enabled: await settings.isSignupEnabled() } }),
  };
}
