/**
 * Shared building blocks of the contract: route metadata,
 * problem responses, pagination and field schemas reused by every area.
 */
import { z } from 'zod';
import { type ProblemCode, ProblemCodeSchema, problemCodeStatus } from './problem-codes.js';
import type { NamedSchemas } from './schema-names.js';
import { strictInput } from './strict-input.js';
import { nonBlankText, text } from './text.js';

export { strictInput } from './strict-input.js';
export { codePointLength, NON_BLANK_PATTERN, nonBlankText } from './text.js';

// ---------------------------------------------------------------------------
// Route metadata (the api's guards read it)
// ---------------------------------------------------------------------------

/**
 * Who may call a route.
 * - `public`: anyone, the token is ignored.
 * - `optional`: anyone; when a valid token is sent the member is used (e.g. `myVote`).
 * - `login`: a signed-in member.
 * - `premium`: a signed-in member on the PREMIUM plan, or an ADMIN.
 * - `admin`: a signed-in member with role ADMIN.
 */
export const authLevels = ['public', 'optional', 'login', 'premium', 'admin'] as const;
export type AuthLevel = (typeof authLevels)[number];

export type RouteMetadata = {
  readonly auth: AuthLevel;
  /**
   * Media type of a binary success body (e.g. image bytes). The route declares the body
   * as a plain schema so that the server keeps the real `Content-Type` it sets; the
   * OpenAPI document uses this value instead of `application/json`.
   */
  readonly binaryResponse?: string;
};

/** `metadata: meta('login')` → `{ auth: 'login' }`, typed literally. */
export function meta<const A extends AuthLevel>(auth: A): { readonly auth: A };
export function meta<const A extends AuthLevel, const E extends Omit<RouteMetadata, 'auth'>>(
  auth: A,
  extra: E,
): { readonly auth: A } & E;
export function meta(auth: AuthLevel, extra?: Omit<RouteMetadata, 'auth'>): RouteMetadata {
  return { ...extra, auth };
}

/**
 * `baseHeaders` for ts-rest's `initClient`: sends `Authorization: Bearer <token>` on every route that takes a
 * session (its `metadata.auth` is not `public`; the OpenAPI document's per-operation `security` says the same),
 * reading the token when each request is made, and nothing while `token()` gives none (decision C31).
 *   initClient(ledgerContract, { baseUrl, baseHeaders: bearerAuth(() => session.token) })
 */
export const bearerAuth = (token: () => string | null | undefined) => ({
  authorization: (options: { route: { metadata?: unknown } }): string => {
    const value = token();
    const auth = (options.route.metadata as { auth?: unknown } | undefined)?.auth;
    // ts-rest leaves out a header whose value is undefined.
    return (value && auth !== 'public' ? `Bearer ${value}` : undefined) as string;
  },
});

export const isAuthLevel = (value: unknown): value is AuthLevel =>
  typeof value === 'string' && (authLevels as readonly string[]).includes(value);

/** The auth level of a route; throws when the route has none (every route must). */
export const routeAuth = (route: { metadata?: unknown; path?: string }): AuthLevel => {
  const m = route.metadata as { auth?: unknown } | undefined;
  if (m && isAuthLevel(m.auth)) return m.auth;
  throw new Error(`route ${route.path ?? '(unknown)'} has no metadata.auth`);
};

// ---------------------------------------------------------------------------
// Problem details (D4)
// ---------------------------------------------------------------------------

export const ProblemFieldErrorSchema = z.object({
  path: text().describe('Dotted path of the offending field, e.g. `body.email`'),
  message: text(),
});

const ProblemObjectSchema = z
  .object({
    type: text().describe('`about:blank` unless a specific problem type applies'),
    title: text(),
    status: z.number().int().min(400).max(599),
    code: ProblemCodeSchema,
    detail: text().optional(),
    instance: text().optional(),
    errors: z.array(ProblemFieldErrorSchema).optional(),
  })
  .describe('Problem details (RFC 9457)');
/** Named so that declaration files refer to it instead of repeating its structure per route. */
export interface ProblemSchemaType extends ProblemObjectSchemaType {}
type ProblemObjectSchemaType = typeof ProblemObjectSchema;
/** RFC 9457 problem details, served as `application/problem+json`. */
export const ProblemSchema: ProblemSchemaType = ProblemObjectSchema;
export type Problem = z.infer<typeof ProblemSchema>;
export type ProblemFieldError = z.infer<typeof ProblemFieldErrorSchema>;

/** Options every area router is built with (then wrapped in `withCommonProblems`): strict status codes. */
export const routerOptions = { strictStatusCodes: true } as const;

// ---------------------------------------------------------------------------
// Problem codes per route (decision C32)
// ---------------------------------------------------------------------------

/** The HTTP status a problem code is sent with (read from `problemCodeStatus`, never restated). */
export type StatusOf<C extends ProblemCode> = (typeof problemCodeStatus)[C];
/** Every status a problem can be sent with. */
export type ProblemStatus = StatusOf<ProblemCode>;
/** The codes of `C` that are sent with `S`. */
export type CodesWithStatus<C extends ProblemCode, S extends number> = C extends ProblemCode
  ? StatusOf<C> extends S
    ? C
    : never
  : never;

type ProblemObjectShape = ProblemObjectSchemaType['shape'];
/**
 * The problem schema of one status of one route: its `code` is one of `C`, so a client's `switch` over it
 * needs only those cases. Named so declaration files write `ProblemSchemaOf<'A' | 'B'>`.
 */
export interface ProblemSchemaOf<C extends ProblemCode>
  extends z.ZodObject<Omit<ProblemObjectShape, 'code'> & { code: z.ZodEnum<[C, ...C[]]> }> {}

/** A route's problem responses for the codes `C`: one schema per status, with that status's codes. */
export type ProblemResponses<C extends ProblemCode> = {
  [S in StatusOf<C>]: ProblemSchemaOf<CodesWithStatus<C, S>>;
};

const codeOrder = new Map(ProblemCodeSchema.options.map((code, index) => [code, index]));
const schemaByCodes = new Map<string, ProblemSchemaOf<ProblemCode>>();

/** One schema per set of codes (the same set shares it), codes in the order of `ProblemCode`. */
const problemSchemaOf = <C extends ProblemCode>(codes: readonly C[]): ProblemSchemaOf<C> => {
  const ordered = [...new Set(codes)].sort((a, b) => (codeOrder.get(a) ?? 0) - (codeOrder.get(b) ?? 0));
  const key = ordered.join(' ');
  let schema = schemaByCodes.get(key);
  if (!schema) {
    schema = ProblemObjectSchema.extend({
      code: z.enum(ordered as unknown as [ProblemCode, ...ProblemCode[]]).describe(ProblemCodeSchema.description ?? ''),
    }) as unknown as ProblemSchemaOf<ProblemCode>;
    schemaByCodes.set(key, schema);
  }
  return schema as unknown as ProblemSchemaOf<C>;
};

/**
 * The problem responses of the codes a route's own work can answer:
 * `responses: { 200: X, ...problems('NOT_FOUND', 'DUPLICATE_NAME') }`. The codes are grouped by their status
 * (`problemCodeStatus`); the codes every route of its kind answers (validation, session, method, overload, …)
 * are added by `withCommonProblems`, not listed here.
 */
export const problems = <const C extends readonly ProblemCode[]>(...codes: C): ProblemResponses<C[number]> => {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of codes) {
    const status = problemCodeStatus[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, grouped]) => [status, problemSchemaOf(grouped)]),
  ) as unknown as ProblemResponses<C[number]>;
};

/** The codes a route declares for a status (none when it does not declare the status as a problem). */
export const declaredProblemCodes = (route: { responses: Record<number, unknown> }, status: number): ProblemCode[] => {
  const schema = route.responses[status] as { shape?: { code?: unknown } } | undefined;
  const code = schema?.shape?.code;
  return code instanceof z.ZodEnum ? [...(code.options as ProblemCode[])] : [];
};

/** Answered on any route: an unserved method, an unexpected error, overload, draining, the database away. */
const everyRouteCodes = [
  'METHOD_NOT_ALLOWED',
  'INTERNAL_ERROR',
  'OVERLOADED',
  'SERVICE_UNAVAILABLE',
  'DATABASE_UNAVAILABLE',
] as const;
/** A method that carries a body is parsed whatever the route declares: bad JSON, too large, wrong media type. */
const bodyMethodCodes = ['MALFORMED_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'] as const;
/** A path parameter: an invalid one, one over the router's length limit (404), a URL that is not valid UTF-8. */
const pathParamCodes = ['VALIDATION_FAILED', 'NOT_FOUND', 'BAD_REQUEST'] as const;
/** A multipart body: malformed (400 `BAD_REQUEST`) or without its file (`VALIDATION_FAILED`). */
const multipartCodes = ['BAD_REQUEST', 'VALIDATION_FAILED'] as const;
const idempotencyCodes = ['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_USE', 'IDEMPOTENCY_OUTCOME_UNKNOWN'] as const;
const authCodes = {
  public: [],
  optional: [],
  login: ['UNAUTHENTICATED'],
  premium: ['UNAUTHENTICATED', 'PREMIUM_REQUIRED'],
  admin: ['UNAUTHENTICATED', 'ADMIN_REQUIRED'],
} as const satisfies Record<AuthLevel, readonly ProblemCode[]>;

type BodyMethod = 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const bodyMethods: readonly string[] = ['POST', 'PUT', 'PATCH', 'DELETE'] satisfies BodyMethod[];

/** The codes `withCommonProblems` adds to a route, by what the route is (mirrors `commonCodesOf`). */
export type CommonCodesOf<R> =
  | (typeof everyRouteCodes)[number]
  | (R extends { metadata: { auth: infer A extends AuthLevel } } ? (typeof authCodes)[A][number] : never)
  | (R extends { method: BodyMethod } ? (typeof bodyMethodCodes)[number] : never)
  | (R extends { body: z.ZodTypeAny }
      ? R extends { contentType: 'multipart/form-data' }
        ? (typeof multipartCodes)[number]
        : 'VALIDATION_FAILED'
      : never)
  | (R extends { query: z.ZodTypeAny } ? 'VALIDATION_FAILED' : never)
  | (R extends { path: `${string}:${string}` } ? (typeof pathParamCodes)[number] : never)
  | (R extends { headers: typeof IdempotencyHeadersSchema } ? (typeof idempotencyCodes)[number] : never);

type CommonRouteShape = {
  method: string;
  path: string;
  metadata?: unknown;
  body?: unknown;
  query?: unknown;
  headers?: unknown;
  contentType?: string;
};

const commonCodesOf = (route: CommonRouteShape): ProblemCode[] => [
  ...everyRouteCodes,
  ...authCodes[routeAuth(route)],
  ...(bodyMethods.includes(route.method) ? bodyMethodCodes : []),
  ...(isAppRouteBody(route.body)
    ? route.contentType === 'multipart/form-data'
      ? multipartCodes
      : ['VALIDATION_FAILED' as const]
    : []),
  ...(isAppRouteBody(route.query) ? ['VALIDATION_FAILED' as const] : []),
  ...(route.path.includes(':') ? pathParamCodes : []),
  ...(route.headers === IdempotencyHeadersSchema ? idempotencyCodes : []),
];
const isAppRouteBody = (value: unknown): boolean => value instanceof z.ZodType;

type ErrorKeys<Responses> = Extract<keyof Responses, ProblemStatus>;
/** The codes a route's responses already declare. */
type DeclaredCodes<Responses> = {
  [S in ErrorKeys<Responses>]: Responses[S] extends { _output: { code: infer C } }
    ? C extends ProblemCode
      ? C
      : never
    : never;
}[ErrorKeys<Responses>];

type WithCodes<Responses, C extends ProblemCode> = {
  [S in Exclude<keyof Responses, ProblemStatus> | StatusOf<C>]: S extends StatusOf<C>
    ? ProblemSchemaOf<CodesWithStatus<C, S>>
    : S extends keyof Responses
      ? Responses[S]
      : never;
};
/** A route with its common codes merged into its problem responses. */
export type WithCommonProblemsRoute<R extends { responses: object }> = {
  [K in keyof R]: K extends 'responses'
    ? WithCodes<R['responses'], DeclaredCodes<R['responses']> | CommonCodesOf<R>>
    : R[K];
};
export type WithCommonProblems<T> = T extends { method: string; path: string; responses: object }
  ? WithCommonProblemsRoute<T>
  : { [K in keyof T]: WithCommonProblems<T[K]> };

const isRoute = (value: unknown): value is CommonRouteShape & { responses: Record<string, unknown> } =>
  typeof value === 'object' && value !== null && 'method' in value && 'path' in value && 'responses' in value;

const withCommonCodes = <R extends CommonRouteShape & { responses: Record<string, unknown> }>(route: R): R => {
  const entries = Object.entries(route.responses);
  const declared = entries.flatMap(([status]) => declaredProblemCodes(route, Number(status)));
  const kept = entries.filter(([status]) => !(Number(status) >= 400));
  return { ...route, responses: { ...Object.fromEntries(kept), ...problems(...declared, ...commonCodesOf(route)) } };
};

/**
 * The route with its JSON body and its query closed at every depth (decision C46): a field they do not name is
 * refused. A multipart form is left open: the server reads its file and nothing else of it.
 */
const withClosedInput = <R extends CommonRouteShape>(route: R): R => {
  const body = isAppRouteBody(route.body) && route.contentType !== 'multipart/form-data';
  return {
    ...route,
    ...(body ? { body: strictInput(route.body as z.ZodTypeAny) } : {}),
    ...(isAppRouteBody(route.query) ? { query: strictInput(route.query as z.ZodTypeAny) } : {}),
  };
};

/**
 * An area router with the codes every route of its kind can answer merged into each route's problem responses,
 * by rule (decision C32): the session codes of its `metadata.auth`, the body codes of a method that carries a
 * body, validation of its body, query and path parameters, the idempotency codes of an `Idempotency-Key`, and
 * 405/500/503 everywhere. Every area router passes through here, so this is also where each route's body and
 * query are closed (`strictInput`, C46). `export const xContract = withCommonProblems(c.router({ … }, routerOptions))`.
 */
export const withCommonProblems = <T extends object>(router: T): WithCommonProblems<T> =>
  Object.fromEntries(
    Object.entries(router).map(([key, value]) => [
      key,
      isRoute(value) ? withCommonCodes(withClosedInput(value)) : withCommonProblems(value as object),
    ]),
  ) as WithCommonProblems<T>;

// ---------------------------------------------------------------------------
// Identifiers, numbers, money (D6)
// ---------------------------------------------------------------------------

/** Largest id accepted in a path or body (fits a Postgres `integer` and a `bigint`). */
export const MAX_ID = 2_147_483_647;

/** An id in a response or JSON body. */
export const IdSchema = z.number().int().min(1).max(MAX_ID);
/**
 * A whole number read from a path or query string, with one message that says what is expected whatever was
 * sent (`abc` would otherwise read "Expected number, received nan").
 */
export const coercedInteger = (min: number, max: number, message = `must be a whole number from ${min} to ${max}`) =>
  z.coerce.number({ invalid_type_error: message }).int(message).min(min, message).max(max, message);

/** An id read from a path or query string. */
export const CoercedIdSchema = coercedInteger(1, MAX_ID, `must be a positive whole number (an id) up to ${MAX_ID}`);
export const IdParamSchema = z.object({ id: CoercedIdSchema });
export type IdParam = z.infer<typeof IdParamSchema>;

/** Whole local-currency units, never a float (D6). */
export const MoneySchema = z
  .number()
  .int()
  .min(-Number.MAX_SAFE_INTEGER)
  .max(Number.MAX_SAFE_INTEGER)
  .describe('Whole local-currency units');
export const NonNegativeMoneySchema = MoneySchema.min(0);
export const PositiveMoneySchema = MoneySchema.min(1);

/**
 * The highest sort position (the columns are `integer`). A new row goes after the last one but never past it:
 * rows at the top share it and their ids order them (decision FI3).
 */
export const SORT_ORDER_MAX = MAX_ID;
/** Integer count/sort position. */
export const SortOrderSchema = z.number().int().min(0).max(SORT_ORDER_MAX);

/** `true`/`false` in a query string → boolean. */
export const QueryBooleanSchema = z.enum(['true', 'false']).transform((v) => v === 'true');

// ---------------------------------------------------------------------------
// Dates and instants (D6)
// ---------------------------------------------------------------------------

/**
 * Years 0001..9999: PostgreSQL has no year 0 and `toISOString` writes others in another shape. The pattern says
 * so, so the OpenAPI document allows exactly the years the server stores (decision C26).
 */
const YEAR_PATTERN = '(000[1-9]|00[1-9]\\d|0[1-9]\\d{2}|[1-9]\\d{3})';
/** A calendar date's shape, years 0001..9999 (the document adds `format: date`). */
export const DATE_PATTERN = new RegExp(`^${YEAR_PATTERN}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$`);
const DATE_RE = DATE_PATTERN;
const isCalendarDate = (s: string): boolean => {
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
};

/** Calendar date `YYYY-MM-DD`. */
export const DateSchema = z
  .string()
  .regex(DATE_RE, 'expected a date YYYY-MM-DD')
  // Only a value of the right shape is asked whether its day exists: one message per bad value.
  .refine((s) => !DATE_RE.test(s) || isCalendarDate(s), 'not a calendar date')
  .describe('Calendar date YYYY-MM-DD');

/**
 * ISO-8601 instant with an offset, e.g. `2024-05-01T09:30:00.000Z` (`Date#toISOString`). A precompiled
 * pattern: zod 3's `.datetime()` rebuilds its regular expression on every check, which every response
 * validation paid for each instant.
 */
export const INSTANT_PATTERN = new RegExp(
  `^${YEAR_PATTERN}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d{1,9})?(Z|[+-]([01]\\d|2[0-3]):[0-5]\\d)$`,
);
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether an instant matching `INSTANT_PATTERN` names a real moment that reads back in the same shape: its
 * day exists in its month (`2026-02-30` does not: `Date` would roll it over to March 2), its year is not
 * 0000, and with the offset applied it stays within the years 0001..9999 (`toISOString` writes other years
 * as `0000`/`+010000`, which the pattern refuses). Only the first and last day can cross, so only they pay
 * for a `Date`.
 */
const isRealInstant = (s: string): boolean => {
  if (!INSTANT_PATTERN.test(s)) return true; // the pattern has said so already
  const year = Number(s.slice(0, 4));
  const month = Number(s.slice(5, 7));
  const day = Number(s.slice(8, 10));
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (year < 1 || day > (month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0))) return false;
  if ((year === 1 && month === 1 && day === 1) || (year === 9999 && month === 12 && day === 31)) {
    const utcYear = new Date(Date.parse(s)).getUTCFullYear();
    return utcYear >= 1 && utcYear <= 9999;
  }
  return true;
};

export const InstantSchema = z
  .string()
  .regex(INSTANT_PATTERN, 'expected an ISO-8601 instant such as 2024-05-01T09:30:00.000Z')
  .refine(isRealInstant, 'not a real instant (no such day, or outside the years 0001..9999 in UTC)')
  .describe('ISO-8601 instant (UTC)');

export const YearSchema = z.number().int().min(1970).max(9999);
export const MonthSchema = z.number().int().min(1).max(12);
export const YearQuerySchema = coercedInteger(1970, 9999);
export const MonthQuerySchema = coercedInteger(1, 12);

// ---------------------------------------------------------------------------
// Decimal strings (quantities, rates)
// ---------------------------------------------------------------------------

/**
 * A non-negative decimal string with at most `integerDigits` digits before and
 * `fractionDigits` digits after the point (numeric(integerDigits + fractionDigits, fractionDigits)).
 */
export const decimalString = (integerDigits: number, fractionDigits: number) =>
  z
    .string()
    .regex(
      new RegExp(`^\\d{1,${integerDigits}}(\\.\\d{1,${fractionDigits}})?$`),
      `expected a decimal string with at most ${integerDigits} integer and ${fractionDigits} fractional digits`,
    )
    .describe(`Decimal string, numeric(${integerDigits + fractionDigits},${fractionDigits})`);

/** Non-negative decimal string, numeric(18,6): at most 12 integer and 6 fractional digits. */
export const DecimalSchema = decimalString(12, 6);

/**
 * A decimal string greater than zero (trade quantity), numeric(18,6): the pattern needs a non-zero digit, so the
 * document says what the server refuses (decision C29).
 */
export const QuantitySchema = z
  .string()
  .regex(
    /^(?=[\d.]*[1-9])\d{1,12}(\.\d{1,6})?$/,
    'expected a decimal string greater than 0 (at most 12 integer and 6 fractional digits)',
  )
  .describe('Decimal string greater than 0, numeric(18,6)');

/** The exchange rate of an entry: local units per foreign unit, numeric(20,10). */
export const RateSchema = decimalString(10, 10);

/** ISO-4217-style three-letter upper-case currency code. */
export const CurrencySchema = text().regex(/^[A-Z]{3}$/, 'expected a 3-letter upper-case code');

// ---------------------------------------------------------------------------
// Pagination (D5)
// ---------------------------------------------------------------------------

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/**
 * An opaque keyset cursor from a previous page's `nextCursor`: the next page starts after it, and its
 * cost does not grow with depth (an offset page does). Clients must not build or parse it.
 */
export const CursorSchema = text().regex(/^[A-Za-z0-9_-]{1,200}$/, 'expected a cursor from a previous page');

/** Deepest row an offset page may start at (`page × size`); deeper pages use the cursor. */
export const MAX_OFFSET_ROWS = 10_000;

/**
 * `Idempotency-Key` of a creating request: a retry with the same key (within 24 hours) answers the first
 * response again instead of creating twice; the same key with another body answers 422.
 */
export const IdempotencyHeadersSchema = z.object({
  'idempotency-key': text()
    .regex(/^[A-Za-z0-9._:-]{8,128}$/, 'expected 8 to 128 letters, digits or . _ : -')
    .optional()
    .describe('A unique value per intended creation (e.g. a UUID); retries reuse it'),
});

export const PageQuerySchema = z.object({
  page: coercedInteger(1, MAX_ID).default(1),
  size: coercedInteger(1, MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
});
export type PageQuery = z.infer<typeof PageQuerySchema>;

/** `{ items, page, size, total }` around an item schema. */
export const paginated = <T extends z.ZodTypeAny>(item: T) =>
  z.object({
    items: z.array(item),
    page: z.number().int().min(1),
    size: z.number().int().min(1),
    total: z.number().int().min(0),
  });
export type Page<T> = { items: T[]; page: number; size: number; total: number };

/** `{ items }` for whole, hand-ordered collections that are never paged. */
export const listOf = <T extends z.ZodTypeAny>(item: T) => z.object({ items: z.array(item) });

// ---------------------------------------------------------------------------
// Small shared bodies
// ---------------------------------------------------------------------------

/**
 * JSON-schema keywords the OpenAPI document cannot infer from a refinement (`uniqueItems` of a uniqueness check):
 * set as the `metaOpenApi` the document's generator (@anatine/zod-openapi, in @nestegg/openapi) merges in. Apply
 * it last: zod's `.describe()` makes a new schema without it (decision C29).
 */
export const withOpenApi = <T extends z.ZodTypeAny>(schema: T, keywords: Record<string, unknown>): T => {
  const hinted = schema as unknown as { metaOpenApi?: Record<string, unknown> };
  hinted.metaOpenApi = { ...hinted.metaOpenApi, ...keywords };
  return schema;
};

/** An array of distinct items, declared `uniqueItems: true` in the document. */
export const uniqueArray = <T extends z.ZodTypeAny>(array: z.ZodArray<T>, message: string) =>
  withOpenApi(
    array.refine((items) => new Set(items).size === items.length, message),
    { uniqueItems: true },
  );

/** Body of every reorder endpoint: the complete new order of the ids. */
export const ReorderBodySchema = z.object({
  ids: uniqueArray(z.array(IdSchema).min(1).max(1000), 'ids must be unique'),
});
export type ReorderBody = z.infer<typeof ReorderBodySchema>;

/** Trimmed, non-empty name. */
export const nameSchema = (max: number) => nonBlankText().max(max);

/** Income or expense: entries, categories, recurring transactions, quick entries. */
export const LedgerTypeSchema = z.enum(['INCOME', 'EXPENSE']);
export type LedgerType = z.infer<typeof LedgerTypeSchema>;

/** Category fields shared by the admin's default categories and the member's own (ledger). */
export const CategoryTypeSchema = LedgerTypeSchema;
export type CategoryType = z.infer<typeof CategoryTypeSchema>;
export const CATEGORY_NAME_MAX = 30;
export const CategoryNameSchema = nameSchema(CATEGORY_NAME_MAX);

/** Member-visible plans. */
export const PlanSchema = z.enum(['FREE', 'PREMIUM']);
export type Plan = z.infer<typeof PlanSchema>;

/** A multipart file field. */
export const FileFieldSchema = z
  .custom<Blob>((v) => v !== undefined && v !== null && v !== '', 'a file is required')
  .describe('File');

/** Component names of the shared schemas. */
export const commonNamedSchemas: NamedSchemas = {
  Problem: ProblemSchema,
  ProblemFieldError: ProblemFieldErrorSchema,
  ProblemCode: ProblemCodeSchema,
  ReorderRequest: ReorderBodySchema,
  Plan: PlanSchema,
  LedgerType: LedgerTypeSchema,
};
