import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';

/** Every route of a router with its dotted key path, e.g. `ledger.entries.list`. */
export const listRoutes = (router: AppRouter, prefix: string[] = []): Array<{ key: string; route: AppRoute }> =>
  Object.entries(router).flatMap(([key, value]) =>
    isAppRoute(value as AppRoute | AppRouter)
      ? [{ key: [...prefix, key].join('.'), route: value as AppRoute }]
      : listRoutes(value as AppRouter, [...prefix, key]),
  );
