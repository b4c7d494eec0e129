/**
 * Issue 36: the document says that requests are closed (C46): every object a JSON request body reaches has
 * `additionalProperties: false`, while every answer stays open to fields added later.
 */
import { describe, expect, it } from 'vitest';
import { components, doc, operations, opFor, type Schema } from './document.js';

const resolve = (schema: Schema): { name?: string; schema: Schema } => {
  if (!schema.$ref) return { schema };
  const name = schema.$ref.replace('#/components/schemas/', '');
  return { name, schema: resolve(components[name]!).schema };
};

/** Every object schema reachable from `root`, each component once, with where it was met. */
function objectsOf(root: Schema, at: string, seen = new Set<string>()): Array<{ at: string; schema: Schema }> {
  const { name, schema } = resolve(root);
  if (name && seen.has(name)) return [];
  if (name) seen.add(name);
  const here = name ?? at;
  const own = schema.type === 'object' || schema.properties ? [{ at: here, schema }] : [];
  const properties = Object.entries((schema.properties as Record<string, Schema> | undefined) ?? {});
  const children: Array<[string, unknown]> = [
    ['[]', schema.items],
    ['.*', typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined],
    ...properties.map(([key, child]): [string, unknown] => [`.${key}`, child]),
    ...(['allOf', 'anyOf', 'oneOf'] as const).flatMap((key) =>
      ((schema[key] as Schema[] | undefined) ?? []).map((child): [string, unknown] => ['', child]),
    ),
  ];
  return [
    ...own,
    ...children.flatMap(([suffix, child]) =>
      child && typeof child === 'object' ? objectsOf(child as Schema, `${here}${suffix}`, seen) : [],
    ),
  ];
}

const requestObjects = operations.flatMap(({ method, path, op }) =>
  Object.entries(op.requestBody?.content ?? {}).flatMap(([mediaType, media]) =>
    objectsOf(media.schema, `${method} ${path} ${mediaType}`).map((found) => ({ ...found, mediaType })),
  ),
);
const responseObjects = operations.flatMap(({ method, path, op }) =>
  Object.entries(op.responses).flatMap(([status, response]) =>
    Object.values(response.content ?? {}).flatMap((media) => objectsOf(media.schema, `${method} ${path} ${status}`)),
  ),
);

describe('requests are closed (C46)', () => {
  it('every object of a JSON request body, at every depth, refuses properties it does not name', () => {
    const json = requestObjects.filter(({ mediaType }) => mediaType === 'application/json');
    expect(json.length).toBeGreaterThan(60);
    const open = json.filter(({ schema }) => schema.additionalProperties !== false).map(({ at }) => at);
    expect(open).toEqual([
      'POST /api/billing/store/rtdn application/json',
      'POST /api/billing/store/rtdn application/json.message',
      'POST /api/billing/store/rtdn application/json.message.attributes',
      // Apple's notification body: fields Apple adds later must not be refused (a refusal is retried for days).
      'POST /api/billing/appstore/notifications application/json',
    ]);
  });

  it('the store push envelope says it takes more, and an upload form is not closed', () => {
    const push = opFor('POST', '/api/billing/store/rtdn').requestBody!.content['application/json']!.schema;
    expect(push.additionalProperties).toBe(true);
    const forms = requestObjects.filter(({ mediaType }) => mediaType === 'multipart/form-data');
    expect(forms.map(({ schema }) => schema.additionalProperties)).toEqual([undefined, undefined, undefined]);
  });

  it('nested items of the restore body are closed: its own component, apart from the backup answer', () => {
    expect(requestObjects.some(({ at }) => at === 'RestoreRequest.entries[]')).toBe(true);
    const restore = opFor('POST', '/api/account/restore').requestBody!.content['application/json']!.schema;
    expect(restore).toEqual({ $ref: '#/components/schemas/RestoreRequest' });
    const signup = opFor('PUT', '/api/admin/settings/signup').requestBody!.content['application/json']!.schema;
    expect(signup).toEqual({ $ref: '#/components/schemas/SignupSettingRequest' });
  });

  it('says so for query parameters, which a list of parameters cannot', () => {
    expect(doc.info.description).toContain('a JSON body field or query parameter an operation does not list');
    for (const { method, path, op } of operations) {
      const takesQuery = (op.parameters ?? []).some((parameter) => parameter.in === 'query');
      const says = Boolean(op.responses['400']?.description.includes('A query parameter this operation does not list'));
      expect(says, `${method} ${path}`).toBe(takesQuery);
    }
  });
});

describe('answers stay open', () => {
  it('no object of any answer refuses properties it does not name', () => {
    expect(responseObjects.length).toBeGreaterThan(100);
    expect(responseObjects.filter(({ schema }) => schema.additionalProperties === false).map(({ at }) => at)).toEqual(
      [],
    );
    expect(components.Backup!.additionalProperties).toBeUndefined();
    expect(components.SignupSetting!.additionalProperties).toBeUndefined();
  });
});
