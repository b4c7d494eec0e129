import { contract } from '@nestegg/contract';
import { listRoutes } from '@nestegg/contract/openapi';
import type { AppRoute, AppRouter } from '@ts-rest/core';

/** Every route of the contract (or of one area), flattened. */
export function contractRoutes(router: AppRouter = contract): AppRoute[] {
  return listRoutes(router).map(({ route }) => route);
}

/** A concrete URL for a route path: every `:param` becomes `1`. */
export function concretePath(path: string): string {
  return path.replace(/:[A-Za-z]+/g, '1');
}
