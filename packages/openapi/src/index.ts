/**
 * OpenAPI 3.0 document of the contract (server side and CI only: imports @ts-rest/open-api, which
 * frontends never install).
 *   import { buildOpenApiDocument } from '@nestegg/openapi';
 */
import { type AuthLevel, CONTRACT_VERSION, contract, type RouteMetadata, routeAuth } from '@nestegg/contract';
import type { AppRoute } from '@ts-rest/core';
import { generateOpenApi } from '@ts-rest/open-api';

export type OpenApiDocument = ReturnType<typeof generateOpenApi>;
type Operation = Parameters<NonNullable<NonNullable<Parameters<typeof generateOpenApi>[2]>['operationMapper']>>[0];

export interface BuildOpenApiOptions {
  /** Base address of the API (e.g. `https://api.example.com`); paths already start with `/api`. */
  serverUrl?: string;
}

export const SECURITY_SCHEME = 'bearerAuth';

const areaTags = [
  { name: 'auth', description: 'Sign-up, sessions, provider sign-in, profile, points, withdrawal' },
  { name: 'admin', description: 'Member management, sign-up switch, default categories' },
  { name: 'board', description: 'Posts, comments, votes, reports, notices, images, tag groups' },
  { name: 'billing', description: 'Plans, store purchases and subscription state' },
  {
    name: 'ledger',
    description: 'Entries, wallets, budgets, categories, tags, recurrings, investments, statistics, backup, fx',
  },
];

const statusText: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '204': 'No content',
  '400': 'Invalid request (VALIDATION_FAILED, MALFORMED_JSON or a domain rule)',
  '401': 'Missing, invalid or expired session (UNAUTHENTICATED) or wrong credentials',
  '403': 'Not allowed (FORBIDDEN, PREMIUM_REQUIRED, ACCOUNT_SUSPENDED, …)',
  '404': 'Not found (NOT_FOUND)',
  '409': 'Conflicts with the current state',
  '413': 'Payload too large',
  '429': 'Too many attempts (RATE_LIMITED)',
  '500': 'Unexpected error (INTERNAL_ERROR)',
  '503': 'A provider is not configured or unreachable (SERVICE_UNAVAILABLE)',
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

const BINARY = { type: 'string', format: 'binary' } as const;

/** Multipart bodies: file fields become binary strings. */
const fixMultipart = (operation: Operation): void => {
  const media =
    operation.requestBody && 'content' in operation.requestBody
      ? operation.requestBody.content['multipart/form-data']
      : undefined;
  const schema = media?.schema as { properties?: Record<string, Record<string, unknown>> } | undefined;
  if (!schema?.properties) return;
  for (const [key, prop] of Object.entries(schema.properties)) {
    if (!('type' in prop) && !('$ref' in prop)) {
      const { nullable: _nullable, ...rest } = prop;
      schema.properties[key] = { ...rest, ...BINARY };
    }
  }
};

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' } as const;

type ProblemSink = { schema?: unknown };

const mapOperation =
  (sink: ProblemSink) =>
  (operation: Operation, route: AppRoute): Operation => {
    const auth = routeAuth(route);
    const dotted = operation.operationId ?? '';
    const area = dotted.split('.')[0] ?? 'misc';
    const metadata = route.metadata as RouteMetadata;

    const responses: Operation['responses'] = {};
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      const r = { ...(response as Record<string, unknown>) };
      r.description = statusText[status] ?? r.description;
      const content = r.content as Record<string, unknown> | undefined;
      const json = content?.['application/json'] as { schema?: unknown } | undefined;
      if (Number(status) >= 400 && json) {
        sink.schema ??= json.schema;
        r.content = { 'application/problem+json': { schema: PROBLEM_REF } };
      } else if (Number(status) < 300 && metadata.binaryResponse) {
        r.content = { [metadata.binaryResponse]: { schema: BINARY } };
      }
      responses[status] = r;
    }
    if (auth === 'premium' && responses['403']) {
      responses['403'] = { ...responses['403'], description: 'PREMIUM_REQUIRED: the caller is on the FREE plan' };
    }

    const mapped: Operation = {
      ...operation,
      operationId: camelOperationId(dotted),
      tags: [area],
      security: securityFor(auth),
      responses,
      'x-auth': auth,
    };
    if (mapped.description === undefined) delete mapped.description;
    if (mapped.deprecated === undefined) delete mapped.deprecated;
    fixMultipart(mapped);
    return mapped;
  };

/** Builds the OpenAPI 3.0 document of every route of the contract. */
export const buildOpenApiDocument = (options: BuildOpenApiOptions = {}): OpenApiDocument => {
  const problem: ProblemSink = {};
  const doc = generateOpenApi(
    contract,
    {
      info: {
        title: 'Nestegg API',
        version: CONTRACT_VERSION,
        description:
          'Household ledger, community board and memberships. Errors are RFC 9457 problem details ' +
          '(`application/problem+json`) with a stable `code`. Send the session token as ' +
          '`Authorization: Bearer <token>`.',
      },
      servers: options.serverUrl ? [{ url: options.serverUrl }] : [],
      tags: areaTags,
      components: {
        securitySchemes: {
          [SECURITY_SCHEME]: { type: 'http', scheme: 'bearer', description: 'Session token from login' },
        },
      },
    },
    { setOperationId: 'concatenated-path', operationMapper: mapOperation(problem) },
  );
  if (problem.schema) {
    doc.components = {
      ...doc.components,
      schemas: { ...doc.components?.schemas, Problem: problem.schema as object },
    };
  }
  return doc;
};
