import {
  type AppRoute,
  type AppRouter,
  isAppRouteOtherResponse,
  isZodType,
  ResponseValidationError,
} from '@ts-rest/core';
import type { RouterImplementation } from '@ts-rest/fastify';

/**
 * Outside production every answer a handler returns is checked against the contract (decision P20): it must
 * pass the response schema and come out of it unchanged, so production, which sends it unchecked, sends
 * the same JSON. A field the contract does not name, a default or a transform the schema would apply, is a
 * view bug that fails the request (500) where the tests see it.
 */
export class ContractDriftError extends Error {
  constructor(route: AppRoute, status: number, where: string) {
    super(
      `[contract drift] ${route.method} ${route.path} answered ${status} with a body the contract would change at ${where || 'the root'}`,
    );
  }
}

type Handler = (args: { appRoute: AppRoute }) => Promise<{ status: number; body: unknown }>;

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/** Keys JSON would write: a key holding `undefined` is not sent. */
const sentKeys = (value: Record<string, unknown>) => Object.keys(value).filter((key) => value[key] !== undefined);

/** Where `sent` and `parsed` would serialise differently (key order aside), or null when they would not. */
export function firstDifference(sent: unknown, parsed: unknown, path = ''): string | null {
  if (Object.is(sent, parsed)) return null;
  if (Array.isArray(sent) && Array.isArray(parsed)) {
    if (sent.length !== parsed.length) return `${path} (length)`;
    for (let index = 0; index < sent.length; index += 1) {
      const found = firstDifference(sent[index], parsed[index], `${path}[${index}]`);
      if (found) return found;
    }
    return null;
  }
  if (sent instanceof Date && parsed instanceof Date) return sent.getTime() === parsed.getTime() ? null : path;
  if (isPlainObject(sent) && isPlainObject(parsed)) {
    const keys = sentKeys(sent);
    const parsedKeys = sentKeys(parsed);
    const extra = keys.find((key) => !(key in parsed) || parsed[key] === undefined);
    if (extra !== undefined) return `${path}.${extra} (not in the contract)`;
    const added = parsedKeys.find((key) => sent[key] === undefined);
    if (added !== undefined) return `${path}.${added} (added by the contract)`;
    for (const key of keys) {
      const found = firstDifference(sent[key], parsed[key], `${path}.${key}`);
      if (found) return found;
    }
    return null;
  }
  return path;
}

function checkedAnswer(route: AppRoute, answer: { status: number; body: unknown }) {
  const declared = route.responses[answer.status];
  if (declared === undefined) return answer;
  const schema = isAppRouteOtherResponse(declared) ? declared.body : declared;
  if (!isZodType(schema)) return answer;
  const parsed = schema.safeParse(answer.body);
  if (!parsed.success) throw new ResponseValidationError(route, parsed.error);
  const where = firstDifference(answer.body, parsed.data);
  if (where !== null) throw new ContractDriftError(route, answer.status, where);
  return answer;
}

function checkedHandler(handler: Handler): Handler {
  return async (args) => checkedAnswer(args.appRoute, await handler(args));
}

/** The router with every handler's answer checked; the same shape ts-rest walks (functions or `{ handler }`). */
export function withResponseCheck<T extends AppRouter>(router: RouterImplementation<T>): RouterImplementation<T> {
  const walk = (node: unknown): unknown => {
    if (typeof node === 'function') return checkedHandler(node as Handler);
    if (typeof node !== 'object' || node === null) return node;
    const withHandler = node as { handler?: unknown };
    if (typeof withHandler.handler === 'function') {
      return { ...withHandler, handler: checkedHandler(withHandler.handler as Handler) };
    }
    return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, walk(child)]));
  };
  return walk(router) as RouterImplementation<T>;
}
