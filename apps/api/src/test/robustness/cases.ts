import type { AppRoute } from '@ts-rest/core';
import fc from 'fast-check';
import type { z } from 'zod';
import { type FieldKind, fieldsOf, isRequired, kindOf, sampleOf } from './schema-walk.js';

/** One request the suite sends; `payload` is a raw string (so malformed bodies can be sent). */
export interface RobustnessCase {
  name: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

export const BODY_LIMIT_BYTES = 2 * 1024 * 1024;
const JSON_TYPE = { 'content-type': 'application/json' };

/** Strings that break naive code: NUL (PostgreSQL refuses it), lone surrogates, size, direction, combining marks. */
export const hostileStrings: Record<string, string> = {
  nul: 'a\u0000b',
  'lone surrogate': 'x\ud800y',
  '100,000 characters': 'a'.repeat(100_000),
  'right-to-left override': '\u202Egnp.exe',
  'combining characters': `e${'\u0301'.repeat(50)}`,
  'only whitespace': ' \t\n ',
};

/** Numbers past every bound: huge, negative, fractional, past 2^31, and number-like strings. */
export const hostileNumbers: Record<string, unknown> = {
  huge: 1e308,
  'past 2^53': 2 ** 53 + 2,
  'past 2^31': 2 ** 31,
  negative: -1,
  fractional: 1.5,
  'NaN string': 'NaN',
  'Infinity string': 'Infinity',
};

/** Values of the wrong JSON type for a field of this kind. */
function wrongTypes(kind: FieldKind): unknown[] {
  const all: Record<FieldKind, unknown[]> = {
    string: [12345, true, ['a'], { a: 1 }],
    number: ['12', true, [1], { n: 1 }],
    boolean: ['true', 1, [true]],
    enum: [42, 'NOT_A_VALUE', [null]],
    array: ['a', 1, { 0: 'a' }],
    object: ['a', 1, [{}]],
    other: [Symbol.for('x').toString(), 1],
  };
  return [null, ...all[kind]];
}

/** `__proto__` and `constructor` as own JSON keys (an object literal would set the prototype instead). */
function withPollution(valid: Record<string, unknown>): string {
  const keys = '"__proto__":{"role":"ADMIN"},"constructor":{"prototype":{"role":"ADMIN"}}';
  const rest = JSON.stringify(valid).slice(1, -1);
  return `{${keys}${rest ? `,${rest}` : ''}}`;
}

function deepJson(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

export interface RouteTarget {
  route: AppRoute;
  /** The path with each `:param` filled in with a plausible value. */
  url: (params?: Record<string, string>) => string;
  headers: Record<string, string>;
}

/**
 * Valid bodies for the rules a schema walk cannot derive (refinements across fields, patterns that are not
 * plain strings): the per-field cases break one field of these.
 */
const KNOWN_VALID_BODIES: Record<string, Record<string, unknown>> = {
  'PUT /api/auth/profile-image': { dataUrl: '' },
  'POST /api/account/budgets/copy': { fromYear: 2026, fromMonth: 1, toYear: 2026, toMonth: 2 },
  'POST /api/account/restore': { tags: [{ name: 'robust' }] },
};

/** The plainest valid body of a route. */
export function validBodyOf(route: AppRoute, body: z.ZodTypeAny): Record<string, unknown> {
  return KNOWN_VALID_BODIES[`${route.method} ${route.path}`] ?? (sampleOf(body) as Record<string, unknown>);
}

function bodyCases(target: RouteTarget, body: z.ZodTypeAny, seed: number): RobustnessCase[] {
  const { route } = target;
  const base = (name: string, payload: string | undefined, headers: Record<string, string> = JSON_TYPE) => ({
    name: `body: ${name}`,
    method: route.method,
    url: target.url(),
    headers: { ...target.headers, ...headers },
    ...(payload === undefined ? {} : { payload }),
  });
  const valid = validBodyOf(route, body);
  const cases: RobustnessCase[] = [
    base('empty', undefined),
    base('empty string with a JSON type', ''),
    base('not JSON with a JSON type', '{"a": 1,'),
    base('not a JSON content type', 'hello', { 'content-type': 'text/plain' }),
    base('form content type', 'a=1&b=2', { 'content-type': 'application/x-www-form-urlencoded' }),
    base('over the body limit', JSON.stringify({ pad: 'x'.repeat(BODY_LIMIT_BYTES) })),
    base('JSON nested 10,000 deep', deepJson(10_000)),
    base('JSON array instead of an object', '[]'),
    base('JSON null', 'null'),
    base('prototype pollution keys', withPollution(valid)),
    base('unknown extra fields', JSON.stringify({ ...valid, unexpectedField: 'x', role: 'ADMIN', memberId: 1 })),
  ];
  for (const { key, schema } of fieldsOf(body)) {
    const kind = kindOf(schema);
    if (isRequired(schema)) {
      const { [key]: _dropped, ...without } = valid;
      cases.push(base(`missing required ${key}`, JSON.stringify(without)));
    }
    for (const wrong of wrongTypes(kind)) {
      cases.push(
        base(`${key} of the wrong type (${JSON.stringify(wrong)})`, JSON.stringify({ ...valid, [key]: wrong })),
      );
    }
    const hostile = kind === 'string' ? hostileStrings : kind === 'number' ? hostileNumbers : {};
    for (const [label, value] of Object.entries(hostile)) {
      cases.push(base(`${key}: ${label}`, JSON.stringify({ ...valid, [key]: value })));
    }
  }
  const randomBodies = fc.sample(fc.jsonValue({ maxDepth: 3 }), { seed, numRuns: 6 });
  for (const [index, value] of randomBodies.entries()) {
    cases.push(base(`random JSON #${index + 1}`, JSON.stringify(value)));
  }
  return cases;
}

/** Percent-encodes like `encodeURIComponent`, but also lone surrogates (as their WTF-8 bytes) instead of throwing. */
function encodeLoosely(value: string): string {
  return Array.from(value, (char) => {
    const unit = char.charCodeAt(0);
    if (char.length > 1 || unit < 0xd800 || unit > 0xdfff) return encodeURIComponent(char);
    return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
      .map((byte) => `%${byte.toString(16).toUpperCase()}`)
      .join('');
  }).join('');
}

function queryCases(target: RouteTarget, query: z.ZodTypeAny): RobustnessCase[] {
  const { route } = target;
  const withQuery = (name: string, search: string) => ({
    name: `query: ${name}`,
    method: route.method,
    url: `${target.url()}?${search}`,
    headers: target.headers,
  });
  const cases = [withQuery('unknown parameter', 'unexpected=1')];
  for (const { key } of fieldsOf(query)) {
    const name = encodeURIComponent(key);
    cases.push(withQuery(`${key}: repeated`, `${name}=1&${name}=2`));
    const values: Record<string, string> = {
      ...Object.fromEntries(Object.entries(hostileStrings).map(([label, value]) => [label, value.slice(0, 2000)])),
      ...Object.fromEntries(Object.entries(hostileNumbers).map(([label, value]) => [label, String(value)])),
      'past 2^31 as text': String(2 ** 31),
      empty: '',
    };
    for (const [label, value] of Object.entries(values)) {
      cases.push(withQuery(`${key}: ${label}`, `${name}=${encodeLoosely(value)}`));
    }
  }
  return cases;
}

/** Raw path segments (already percent-encoded where needed). */
const hostileSegments: Record<string, string> = {
  'past 2^31': String(2 ** 31),
  'past 2^63': '9223372036854775808',
  negative: '-1',
  zero: '0',
  fractional: '1.5',
  'NaN string': 'NaN',
  'not a number': 'abc',
  'encoded NUL': '%00',
  'encoded lone surrogate': '%ED%A0%80',
  'malformed percent-encoding': '%E0%A4%A',
  'path traversal': '..%2F..%2Fetc',
  '2,000 characters': '9'.repeat(2000),
};

function pathCases(target: RouteTarget, params: string[]): RobustnessCase[] {
  return params.flatMap((param) =>
    Object.entries(hostileSegments).map(([label, segment]) => ({
      name: `path :${param}: ${label}`,
      method: target.route.method,
      url: target.url({ [param]: segment }),
      headers: target.headers,
    })),
  );
}

export const pathParamsOf = (path: string): string[] => [...path.matchAll(/:([A-Za-z]+)/g)].map((match) => match[1]!);

/** Every bad-input case for one route, deterministic for a seed. */
export function casesFor(target: RouteTarget, seed: number): RobustnessCase[] {
  const { route } = target;
  const body = 'body' in route && route.body instanceof Object && 'safeParse' in route.body ? route.body : undefined;
  const query = route.query && 'safeParse' in route.query ? route.query : undefined;
  return [
    ...(body ? bodyCases(target, body as z.ZodTypeAny, seed) : []),
    ...(query ? queryCases(target, query as z.ZodTypeAny) : []),
    ...pathCases(target, pathParamsOf(route.path)),
  ];
}
