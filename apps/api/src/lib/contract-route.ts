import type { AppRoute } from '@ts-rest/core';
import type { FastifyRequest } from 'fastify';

/**
 * The contract route a request matched (ts-rest keeps it in the route's config); undefined for what is not in
 * the contract (the probes, a path no route serves).
 */
export const contractRouteOf = (request: FastifyRequest): AppRoute | undefined =>
  (request.routeOptions.config as { tsRestRoute?: AppRoute } | undefined)?.tsRestRoute;
