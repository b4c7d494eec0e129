import { contract, listRoutes } from '@nestegg/contract';
import type { AppRoute, AppRouter } from '@ts-rest/core';

/** Every route of the contract (or of one area), flattened. */
export function contractRoutes(router: AppRouter = contract): AppRoute[] {
  return listRoutes(router).map(({ route }) => route);
}

/** A concrete URL for a route path: every `:param` becomes `1`. */
export function concretePath(path: string): string {
  return path.replace(/:[A-Za-z]+/g, '1');
}
