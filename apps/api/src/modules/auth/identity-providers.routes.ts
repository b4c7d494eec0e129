import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthHandlers } from './handlers.js';

const originOf = (request: FastifyRequest) => ({ ip: request.ip, userAgent: request.headers['user-agent'] });

export function identityProviderHandlers(
  app: FastifyInstance,
): AuthHandlers<'idpOneLogin' | 'idpTwoLogin' | 'idpOneClientId'> {
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
  };
}
