import type { AppRouter } from '@ts-rest/core';
import { initServer, type RouterImplementation } from '@ts-rest/fastify';
import type { FastifyInstance } from 'fastify';
import { handleError } from '../plugins/error-handler.js';
import { addLocation } from './location.js';

export const server = initServer();

/**
 * Registers one area's ts-rest router. Responses are validated against the contract, which also strips
 * any field the contract does not name. ts-rest installs its own error handler on `app` (call this in
 * the module's own encapsulated context): request validation errors go to ours, and every other error
 * is passed on by ts-rest to the parent context, whose handler is ours too. A 201 gets its `Location` (C31).
 */
export function registerContractRouter<T extends AppRouter>(
  app: FastifyInstance,
  contract: T,
  router: RouterImplementation<T>,
): void {
  app.addHook('onSend', addLocation);
  server.registerRouter(contract, router, app, {
    logInitialization: false,
    responseValidation: true,
    requestValidationErrorHandler: (error, request, reply) => {
      void handleError(error as never, request, reply);
    },
  });
}
