/**
 * @nestegg/contract — the typed HTTP contract of the Nestegg API.
 *
 * Safe for frontend code: imports only `@ts-rest/core` and `zod`.
 *   import { contract, initClient } from '@nestegg/contract';
 * The OpenAPI document is built by the separate, server-only `@nestegg/openapi` package.
 */
import { adminContract } from './admin.js';
import { authContract } from './auth.js';
import { billingContract } from './billing.js';
import { boardContract } from './board.js';
import { ledgerContract } from './ledger/index.js';

export type {
  AppRoute,
  AppRouter,
  ClientInferRequest,
  ClientInferResponseBody,
  ClientInferResponses,
  ServerInferRequest,
  ServerInferResponses,
} from '@ts-rest/core';
export { initClient } from '@ts-rest/core';
export * from './admin.js';
export * from './auth.js';
export * from './billing.js';
export * from './board.js';
export * from './common.js';
export * from './ledger/index.js';
export * from './routes.js';

export const CONTRACT_VERSION = '0.1.0';

/**
 * Every endpoint of the API. Paths are complete (`/api/...`); every route carries
 * `metadata.auth`; status codes are strict; every route may answer 500 with a problem
 * (each area router is built with `routerOptions`).
 */
export const contract: {
  auth: typeof authContract;
  admin: typeof adminContract;
  board: typeof boardContract;
  billing: typeof billingContract;
  ledger: typeof ledgerContract;
} = {
  auth: authContract,
  admin: adminContract,
  board: boardContract,
  billing: billingContract,
  ledger: ledgerContract,
};
export type Contract = typeof contract;
