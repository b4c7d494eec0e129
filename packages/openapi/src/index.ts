/**
 * OpenAPI 3.0 document of the contract (server side and CI only: imports @ts-rest/open-api, which
 * frontends never install).
 *   import { buildOpenApiDocument } from '@nestegg/openapi';
 */
import {
  CONTRACT_VERSION,
  contract,
  DATE_PATTERN,
  INSTANT_PATTERN,
  namedSchemas,
  problemCodeInfo,
} from '@nestegg/contract';
import { generateOpenApi } from '@ts-rest/open-api';
import { assertNoMarkers, ComponentCollector, type JsonSchema, withSchemaMarkers } from './components.js';
import { addExamples } from './examples.js';
import { mapOperation, SECURITY_SCHEME } from './operations.js';
import { documentTagGroups, documentTags } from './tags.js';

export { SECURITY_SCHEME } from './operations.js';
export type OpenApiDocument = ReturnType<typeof generateOpenApi>;

export interface BuildOpenApiOptions {
  /** Base address of the API (e.g. `https://api.example.com`); paths already start with `/api`. */
  serverUrl?: string;
}

/** Without a known address, paths are relative to wherever the client points (OpenAPI's default). */
const RELATIVE_SERVER = { url: '/', description: 'The address the client is configured with' };

const info = {
  title: 'Nestegg API',
  version: CONTRACT_VERSION,
  description:
    'Household ledger, community board and memberships. Errors are RFC 9457 problem details ' +
    '(`application/problem+json`) with a stable `code` (see the `ProblemCode` schema). Send the session ' +
    'token as `Authorization: Bearer <token>`. Requests are closed: a JSON body field or query parameter an ' +
    'operation does not list is refused with 400 `VALIDATION_FAILED` naming it (request schemas say ' +
    '`additionalProperties: false`); answers may gain fields, so clients ignore the ones they do not know.',
  contact: { name: 'Nestegg backend team' },
  license: { name: 'Proprietary' },
};

/** The code list of `ProblemCode`, with each code's status and meaning, for readers and generators. */
const describeProblemCodes = (schema: JsonSchema): JsonSchema => {
  const codes = Object.entries(problemCodeInfo);
  const table = codes.map(([code, { status, description }]) => `- \`${code}\` (${status}): ${description}`);
  return {
    ...schema,
    description: [schema.description, ...table].filter(Boolean).join('\n'),
    'x-enum-descriptions': codes.map(([, { description }]) => description),
  };
};

const sortedComponents = (components: Record<string, JsonSchema>): Record<string, JsonSchema> =>
  Object.fromEntries(
    Object.keys(components)
      .sort()
      .map((name) => [name, name === 'ProblemCode' ? describeProblemCodes(components[name]!) : components[name]!]),
  );

/** Formats by pattern: instants and dates are precompiled patterns in the contract (cheap to validate, and they
 * name the years the server stores, C26); generators want the format. */
const formatsByPattern = new Map([
  [INSTANT_PATTERN.source, 'date-time'],
  [DATE_PATTERN.source, 'date'],
]);
const markInstants = (node: unknown): void => {
  if (Array.isArray(node)) {
    for (const item of node) markInstants(item);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  const format = typeof schema.pattern === 'string' ? formatsByPattern.get(schema.pattern) : undefined;
  if (schema.type === 'string' && format) schema.format = format;
  for (const value of Object.values(schema)) markInstants(value);
};

/** Builds the OpenAPI 3.0 document of every route of the contract. */
export const buildOpenApiDocument = (options: BuildOpenApiOptions = {}): OpenApiDocument =>
  withSchemaMarkers(namedSchemas, () => {
    const collector = new ComponentCollector(namedSchemas);
    const document = generateOpenApi(
      contract,
      {
        info,
        servers: [options.serverUrl ? { url: options.serverUrl } : RELATIVE_SERVER],
        tags: documentTags,
        components: {
          securitySchemes: {
            [SECURITY_SCHEME]: { type: 'http', scheme: 'bearer', description: 'Session token from login' },
          },
        },
      },
      { setOperationId: 'concatenated-path', operationMapper: mapOperation(collector) },
    );
    document.components = { ...document.components, schemas: sortedComponents(collector.components) };
    assertNoMarkers(document);
    markInstants(document);
    addExamples(document as never);
    return { ...document, 'x-tagGroups': documentTagGroups } as OpenApiDocument;
  });
