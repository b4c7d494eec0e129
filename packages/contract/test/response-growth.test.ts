/**
 * Answers may grow with new fields, and the README tells clients to ignore the ones they do not know (decision C45):
 * no response schema may refuse a key it does not declare, or a client on an older package that validates answers
 * (`validateResponse: true`) would fail on a newer api.
 */
import { isZodType } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { routes } from './routes.js';

/** The zod schemas a schema is made of (wrapped, piped, listed, united), read from its definition. */
const partsOf = (schema: z.ZodTypeAny): z.ZodTypeAny[] =>
  Object.values(schema._def as Record<string, unknown>).flatMap((value) =>
    (Array.isArray(value) ? value : [value]).filter((item): item is z.ZodTypeAny => isZodType(item)),
  );

/** The paths inside `schema` of the objects that refuse a key they do not declare. */
function strictObjects(schema: z.ZodTypeAny, path: string): string[] {
  if (!(schema instanceof z.ZodObject)) return partsOf(schema).flatMap((part) => strictObjects(part, path));
  const fields = Object.entries(schema.shape as z.ZodRawShape);
  return [
    ...(schema._def.unknownKeys === 'strict' ? [path] : []),
    ...fields.flatMap(([key, field]) => strictObjects(field, `${path}.${key}`)),
  ];
}

/** A declared response: a schema, or `c.otherResponse({ contentType, body })`; `c.noBody()` has none. */
const bodySchemaOf = (response: unknown): z.ZodTypeAny | undefined => {
  if (isZodType(response)) return response;
  const body = (response as { body?: unknown } | null)?.body;
  return isZodType(body) ? body : undefined;
};

describe('answers that grow', () => {
  it('finds an object that refuses unknown keys, however deep', () => {
    const answer = z.object({ items: z.array(z.object({ id: z.number() }).strict()).optional() });
    expect(strictObjects(answer, 'body')).toEqual(['body.items']);
    expect(strictObjects(z.union([z.object({}).passthrough(), z.object({}).strip()]), 'body')).toEqual([]);
  });

  it('no route answers with a schema that refuses a field it does not declare', () => {
    const strict = routes.flatMap(({ key, route }) =>
      Object.entries(route.responses).flatMap(([status, response]) => {
        const schema = bodySchemaOf(response);
        return schema ? strictObjects(schema, `${key} ${status}`) : [];
      }),
    );
    expect(strict).toEqual([]);
  });
});
