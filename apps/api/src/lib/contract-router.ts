import type { AppRouter } from '@ts-rest/core';
import { initServer, type RouterImplementation } from '@ts-rest/fastify';
import type { FastifyInstance } from 'fastify';
import { handleError } from '../plugins/error-handler.js';
import { addLocation } from './location.js';
import { withResponseCheck } from './response-check.js';

export const server = initServer();

export interface ContractRouterOptions {
  /** The router's handlers check their own answers against the contract (they answer JSON text). */
  validatesOwnResponses?: boolean;
}

/**
 * A body that is already JSON, as text or UTF-8 bytes: sent as it is (Fastify serialises only objects), typed as the contract's
 * body so the handler type-checks. Only for routers registered with `validatesOwnResponses`. (The reply is
 * typed by what is used of it: ts-rest's reply type orders Fastify's generics differently.)
 */
export function jsonText<T>(reply: { type(contentType: string): unknown }, text: string | Buffer): T {
  reply.type('application/json; charset=utf-8');
  return text as unknown as T;
}

/**
 * Registers one area's ts-rest router. Outside production each answer is checked against the contract and
 * must pass it unchanged; production sends what the handler returned without the check (decision P20). ts-rest
 * installs its own error handler on `app` (call this in the module's own encapsulated context): request
 * validation errors go to ours, and every other error is passed on by ts-rest to the parent context, whose
 * handler is ours too. A 201 gets its `Location` (C31).
 */
export function registerContractRouter<T extends AppRouter>(
  app: FastifyInstance,
  contract: T,
  router: RouterImplementation<T>,
  options: ContractRouterOptions = {},
): void {
  app.addHook('onSend', addLocation);
  const checked = app.env.NODE_ENV !== 'production' && !options.validatesOwnResponses;
  server.registerRouter(contract, checked ? withResponseCheck(router) : router, app, {
    logInitialization: false,
    responseValidation: false,
    requestValidationErrorHandler: (error, request, reply) => {
      void handleError(error as never, request, reply);
    },
  });
}
