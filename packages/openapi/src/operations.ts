/** How one route of the contract becomes an OpenAPI operation. */
import { generateSchema } from '@anatine/zod-openapi';
import { type AuthLevel, declaredProblemCodes, ProblemSchema, type RouteMetadata, routeAuth } from '@nestegg/contract';
import { type AppRoute, isZodType } from '@ts-rest/core';
import type { generateOpenApi } from '@ts-rest/open-api';
import type { ComponentCollector, JsonSchema } from './components.js';
import { tagOf } from './tags.js';

type OperationMapper = NonNullable<NonNullable<Parameters<typeof generateOpenApi>[2]>['operationMapper']>;
export type Operation = Parameters<OperationMapper>[0];
type Response = { description: string; headers?: Record<string, unknown>; content?: Record<string, Media> };
type Media = { schema?: JsonSchema };

export const SECURITY_SCHEME = 'bearerAuth';
const PROBLEM_MEDIA_TYPE = 'application/problem+json';
const BINARY = { type: 'string', format: 'binary' } as const;

const statusText: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '204': 'No content',
  '400': 'Invalid request: VALIDATION_FAILED (see `errors`), MALFORMED_JSON or a domain code',
  '401': 'No valid session (UNAUTHENTICATED) or rejected credentials',
  '403': 'Not allowed: FORBIDDEN, ADMIN_REQUIRED, PREMIUM_REQUIRED or a domain code',
  '404': 'Not found (NOT_FOUND)',
  '405': 'The server does not serve this method on the path (METHOD_NOT_ALLOWED): `Allow` lists the methods it serves',
  '409': 'Conflicts with the current state (CONFLICT or a domain code)',
  '413': 'The body is too large (PAYLOAD_TOO_LARGE)',
  '415': 'The Content-Type is not accepted (UNSUPPORTED_MEDIA_TYPE)',
  '429': 'Too many attempts (RATE_LIMITED): retry after `Retry-After` seconds',
  '500': 'Unexpected error (INTERNAL_ERROR)',
  '503': 'Overloaded (OVERLOADED, with `Retry-After`) or a service the route needs is unavailable',
};

const retryAfter = (required: boolean, description: string) => ({
  'Retry-After': { description, required, schema: { type: 'integer', minimum: 1 } },
});
const headersByStatus: Record<string, Record<string, unknown>> = {
  '429': retryAfter(true, 'Seconds until the limit resets'),
  '503': retryAfter(false, 'Seconds to wait before retrying; sent with OVERLOADED'),
  '405': {
    Allow: {
      description: 'The methods served on the path, e.g. `GET, HEAD, PUT`',
      required: true,
      schema: { type: 'string' },
    },
  },
  '201': {
    Location: {
      description: 'Where the created resource is (a path of this API, or the image URL for an upload)',
      required: true,
      schema: { type: 'string', format: 'uri-reference' },
    },
  },
};

const accessText: Record<AuthLevel, string> = {
  public: 'Public: no session needed.',
  optional: 'Public; with a valid session the answer is personalised for the member.',
  login: 'Needs a session (`Authorization: Bearer <token>`).',
  premium: 'Needs a session of a PREMIUM member or an administrator.',
  admin: 'Needs a session of an administrator.',
};

const securityFor = (auth: AuthLevel): Array<Record<string, string[]>> => {
  switch (auth) {
    case 'public':
      return [];
    case 'optional':
      return [{ [SECURITY_SCHEME]: [] }, {}];
    default:
      return [{ [SECURITY_SCHEME]: [] }];
  }
};

const camelOperationId = (dotted: string): string =>
  dotted
    .split('.')
    .map((part, i) => (i === 0 ? part : part.charAt(0).toUpperCase() + part.slice(1)))
    .join('');

const describeOperation = (route: AppRoute, auth: AuthLevel): string => {
  const lead = route.description ?? `${route.summary ?? route.path}.`;
  const limit = '429' in route.responses ? ['Rate-limited: too many attempts answer 429 with `Retry-After`.'] : [];
  return [lead, accessText[auth], ...limit].join('\n\n');
};

const PREMIUM_FORBIDDEN = 'Not allowed: PREMIUM_REQUIRED (the caller is on the FREE plan) or a domain code';

/** Query parameters are closed too (C46), which a list of parameters cannot say by itself. */
const CLOSED_QUERY = 'A query parameter this operation does not list is refused as well (VALIDATION_FAILED).';

const describeStatus = (status: string, route: AppRoute, fallback: string): string => {
  if (status === '403' && routeAuth(route) === 'premium') return PREMIUM_FORBIDDEN;
  const text = statusText[status] ?? fallback;
  return status === '400' && isZodType(route.query) ? `${text}. ${CLOSED_QUERY}` : text;
};

const problemReferences = new WeakMap<ComponentCollector, JsonSchema>();
/** `$ref` to the `Problem` component, generated once per document. */
const problemReference = (collector: ComponentCollector): JsonSchema => {
  const known = problemReferences.get(collector);
  if (known) return known;
  const reference = collector.refs(generateSchema(ProblemSchema, true) as JsonSchema, 'output');
  problemReferences.set(collector, reference);
  return reference;
};

/**
 * A problem response: the `Problem` component with `code` narrowed to the codes the route declares for the status
 * (decision C32), so a generated client's switch over them needs only those cases.
 */
const problemOf = (route: AppRoute, status: string, collector: ComponentCollector): JsonSchema => ({
  allOf: [
    problemReference(collector),
    { required: ['code'], properties: { code: { type: 'string', enum: declaredProblemCodes(route, Number(status)) } } },
  ],
});

const mapResponse = (status: string, response: Response, route: AppRoute, collector: ComponentCollector) => {
  const json = response.content?.['application/json'];
  const { binaryResponse } = route.metadata as RouteMetadata;
  const mapped: Response = { description: describeStatus(status, route, response.description) };
  const headers = headersByStatus[status];
  if (headers) mapped.headers = headers;
  if (json?.schema) {
    if (Number(status) >= 400)
      mapped.content = { [PROBLEM_MEDIA_TYPE]: { schema: problemOf(route, status, collector) } };
    else if (binaryResponse) mapped.content = { [binaryResponse]: { schema: BINARY } };
    else mapped.content = { 'application/json': { ...json, schema: collector.refs(json.schema, 'output') } };
  }
  return mapped;
};

/** Multipart file fields (no JSON type of their own) become binary strings. */
const binaryFileFields = (schema: JsonSchema): JsonSchema => {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (!properties) return schema;
  const withFiles = Object.entries(properties).map(([key, property]) => {
    if ('type' in property || '$ref' in property) return [key, property];
    const { nullable: _nullable, ...rest } = property;
    return [key, { ...rest, ...BINARY }];
  });
  return { ...schema, properties: Object.fromEntries(withFiles) };
};

const mapRequestBody = (route: AppRoute, body: Operation['requestBody'], collector: ComponentCollector) => {
  if (!body || !('content' in body)) return undefined;
  const content = Object.fromEntries(
    Object.entries(body.content as Record<string, Media>).map(([mediaType, media]) => {
      const schema = collector.refs(media.schema ?? {}, 'input');
      return [mediaType, { ...media, schema: mediaType === 'multipart/form-data' ? binaryFileFields(schema) : schema }];
    }),
  );
  const required = 'body' in route && isZodType(route.body) && !route.body.isOptional();
  return { required, content };
};

const mapParameters = (parameters: Operation['parameters'], collector: ComponentCollector) =>
  (parameters ?? []).map((parameter) =>
    'schema' in parameter && parameter.schema
      ? { ...parameter, schema: collector.refs(parameter.schema as JsonSchema, 'input') }
      : parameter,
  );

/** The `operationMapper` of ts-rest's generator: ids, tags, security, descriptions, problems, references. */
export const mapOperation =
  (collector: ComponentCollector): OperationMapper =>
  (operation, route) => {
    const auth = routeAuth(route);
    const dotted = operation.operationId ?? '';
    const responses = Object.fromEntries(
      Object.entries(operation.responses ?? {}).map(([status, response]) => [
        status,
        mapResponse(status, response as Response, route, collector),
      ]),
    );
    const requestBody = mapRequestBody(route, operation.requestBody, collector);
    return {
      operationId: camelOperationId(dotted),
      summary: operation.summary,
      description: describeOperation(route, auth),
      tags: [tagOf(camelOperationId(dotted))],
      ...(operation.deprecated === undefined ? {} : { deprecated: operation.deprecated }),
      security: securityFor(auth),
      'x-auth': auth,
      parameters: mapParameters(operation.parameters, collector),
      ...(requestBody ? { requestBody } : {}),
      responses,
    } as Operation;
  };
