import { contract } from '@nestegg/contract';
import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';

/** Every route of the contract, flattened. */
export function contractRoutes(router: AppRouter = contract): AppRoute[] {
  return Object.values(router).flatMap((entry) => (isAppRoute(entry) ? [entry] : contractRoutes(entry)));
}

/** A concrete URL for a route path: every `:param` becomes `1`. */
export function concretePath(path: string): string {
  return path.replace(/:[A-Za-z]+/g, '1');
}
