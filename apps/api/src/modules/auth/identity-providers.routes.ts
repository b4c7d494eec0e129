import type { FastifyInstance } from 'fastify';
import type { AuthHandlers } from './handlers.js';

export function identityProviderHandlers(
  app: FastifyInstance,
): AuthHandlers<'idpOneLogin' | 'idpTwoLogin' | 'idpOneClientId'> {
  const { providerSignIn } = app.services;
  return {
    idpOneLogin: async ({ body, request }) => ({
      status: 200,
      body: await providerSignIn.signIn('IDPONE', body.idToken, request.ip, {}),
    }),
    idpTwoLogin: async ({ body, request }) => ({
      status: 200,
      body: await providerSignIn.signIn('IDPTWO', body.identityToken, request.ip, { displayName: body.displayName }),
    }),
    idpOneClientId: async () => ({ status: 200, body: { clientId: providerSignIn.clientIdOf('IDPONE') } }),
  };
}
