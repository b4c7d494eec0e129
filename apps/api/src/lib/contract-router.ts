import type { AppRouter } from '@ts-rest/core';
import { initServer, type RouterImplementation } from '@ts-rest/fastify';
import type { FastifyInstance } from 'fastify';
import { installErrorHandlers } from '../plugins/error-handler.js';

export const server = initServer();

/**
 * Registers one area's ts-rest router. Responses are validated against the contract, which also strips
 * any field the contract does not name. ts-rest replaces the context's error handler, so ours is put back.
 */
export function registerContractRouter<T extends AppRouter>(
  app: FastifyInstance,
  contract: T,
  router: RouterImplementation<T>,
): void {
  server.registerRouter(contract, router, app, {
    logInitialization: false,
    responseValidation: true,
    requestValidationErrorHandler: (error) => {
      throw error;
    },
  });
  installErrorHandlers(app);
}
