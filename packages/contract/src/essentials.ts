/**
 * What every entry point exports besides its routes: the ts-rest client, problem details and
 * problem codes, the shared field schemas and route metadata.
 */
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
export * from './common.js';
export * from './problem-codes.js';
export * from './routes.js';
export * from './schema-names.js';

/** Version of the contract (= the package version; a test keeps them equal). */
export const CONTRACT_VERSION = '0.1.0';
