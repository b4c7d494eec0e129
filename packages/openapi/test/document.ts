import { buildOpenApiDocument } from '../src/index.js';

export type Schema = { $ref?: string; [key: string]: unknown };
export type Response = {
  description: string;
  headers?: Record<string, { required?: boolean; schema: Schema }>;
  content?: Record<string, { schema: Schema; example?: unknown }>;
};
export type Op = {
  operationId?: string;
  description?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; schema?: Schema }>;
  responses: Record<string, Response>;
  requestBody?: {
    required?: boolean;
    content: Record<string, { schema: Schema & { properties?: Record<string, { format?: string }> } }>;
  };
};

export const doc = buildOpenApiDocument({ serverUrl: 'https://api.example.test' });
export const components = (doc.components?.schemas ?? {}) as Record<string, Schema>;

export const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item as Record<string, Op>).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
);

export const opFor = (method: string, path: string): Op => {
  const found = operations.find((o) => o.method === method && o.path === path);
  if (!found) throw new Error(`no operation ${method} ${path}`);
  return found.op;
};

/** The JSON schema of a success response. */
export const successSchema = (op: Op, status = '200'): Schema | undefined =>
  op.responses[status]?.content?.['application/json']?.schema;

/** `value` without the examples (C36), for tests about the schemas alone. */
export const withoutExamples = <T>(value: T): T =>
  JSON.parse(JSON.stringify(value, (key, child) => (key === 'example' ? undefined : child))) as T;
