import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sessionOf } from '../../../lib/session.js';
import type { AuthHandlers } from './handlers.js';
import { reauthenticatedUntil } from './reauthentication.js';

const originOf = (request: FastifyRequest) => ({ ip: request.ip, userAgent: request.headers['user-agent'] });

export function identityProviderHandlers(
  app: FastifyInstance,
): AuthHandlers<'idpOneLogin' | 'idpTwoLogin' | 'idpOneClientId' | 'reauthenticate'> {
  const { providerSignIn } = app.services;
  return {
    idpOneLogin: async ({ body, request }) => ({
      status: 200,
      body: await providerSignIn.signIn('IDPONE', body.idToken, originOf(request), {}),
    }),
    idpTwoLogin: async ({ body, request }) => ({
      status: 200,
      body: await providerSignIn.signIn('IDPTWO', body.identityToken, originOf(request), {
        displayName: body.displayName,
      }),
    }),
    idpOneClientId: async () => ({ status: 200, body: { clientId: providerSignIn.clientIdOf('IDPONE') } }),
    reauthenticate: async ({ body, request }) => {
      const at = await providerSignIn.reauthenticate(sessionOf(request), body.provider, body.token, request.ip);
      return { status: 200, body: { verified: true, reauthenticatedUntil: reauthenticatedUntil(at).toISOString() } };
    },
  };
}
