import { contract, listRoutes } from '@nestegg/contract';
import type { AppRoute } from '@ts-rest/core';

export type RouteEntry = { key: string; route: AppRoute; method: string; openApiPath: string };

/** Every route of the contract with its key path and its OpenAPI-style path. */
export const routes: RouteEntry[] = listRoutes(contract).map(({ key, route }) => ({
  key,
  route,
  method: route.method,
  openApiPath: route.path.replace(/:(\w+)/g, '{$1}'),
}));

export const signature = (method: string, path: string): string => `${method.toUpperCase()} ${path}`;
