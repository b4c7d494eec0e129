/**
 * @nestegg/contract — the typed HTTP contract of the Nestegg API.
 *
 * Safe for frontend code: imports only `@ts-rest/core` and `zod`.
 *   import { contract, initClient } from '@nestegg/contract';
 * One area only (smaller bundles): `@nestegg/contract/auth`, `/admin`, `/board`, `/billing`, `/ledger`.
 * The OpenAPI document is built by the separate, server-only `@nestegg/openapi` package.
 */
import { adminContract, adminNamedSchemas } from './admin.js';
import { authContract, authNamedSchemas } from './auth.js';
import { billingContract, billingNamedSchemas } from './billing.js';
import { boardContract, boardNamedSchemas } from './board/index.js';
import { commonNamedSchemas } from './common.js';
import { ledgerContract, ledgerNamedSchemas } from './ledger/index.js';
import { combineNamedSchemas, type NamedSchemas } from './schema-names.js';

export * from './admin.js';
export * from './auth.js';
export * from './billing.js';
export * from './board/index.js';
export * from './essentials.js';
export * from './ledger/index.js';
export * from './problem-code-descriptions.js';

/**
 * Every endpoint of the API. Paths are complete (`/api/...`); every route carries
 * `metadata.auth`; status codes are strict; each problem status lists the codes the route can answer
 * (`problems(...)` plus the codes of its kind, added by `withCommonProblems`: decision C32).
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

/** Every named schema of the contract: the OpenAPI builder's `#/components/schemas`. */
// Pure: a bundler may drop it (and the areas it lists) when only one area is imported from the root.
export const namedSchemas: NamedSchemas = /* @__PURE__ */ combineNamedSchemas(
  commonNamedSchemas,
  authNamedSchemas,
  adminNamedSchemas,
  boardNamedSchemas,
  billingNamedSchemas,
  ledgerNamedSchemas,
);
