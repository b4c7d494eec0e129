import { problemCodeInfo } from '@nestegg/contract';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { addExamples, problemCodeFor } from '../src/examples.js';
import { components, doc, type Op, operations, type Schema } from './document.js';

type Media = { schema: Schema; example?: unknown };

/**
 * OpenAPI 3.0's schema object is JSON Schema draft 4/5 plus `nullable` (which Ajv knows) and annotations.
 * Ajv's default dialect (draft-07) reads every keyword the document uses the same way; the boolean forms of
 * exclusiveMinimum/exclusiveMaximum would differ, so the test first checks the document has none.
 */
const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true });
addFormats(ajv);
ajv.addFormat('binary', true);
ajv.addSchema({ components: { schemas: components } }, 'openapi.json');

const compiled = new Map<string, ValidateFunction>();
const compile = (schema: Schema): ValidateFunction => {
  const text = JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/');
  const validate = compiled.get(text) ?? ajv.compile(JSON.parse(text));
  compiled.set(text, validate);
  return validate;
};

const resolve = (schema: Schema): Schema =>
  typeof schema.$ref === 'string' ? resolve(components[schema.$ref.split('/').pop()!]!) : schema;

/** Properties an example carries that its schema does not declare (the schemas allow them; readers would be misled). */
const undeclared = (schema: Schema, example: unknown, at = ''): string[] => {
  const target = resolve(schema);
  const parts = [target, ...((target.allOf ?? []) as Schema[]).map(resolve)];
  if (Array.isArray(example))
    return target.items ? example.flatMap((item, i) => undeclared(target.items as Schema, item, `${at}/${i}`)) : [];
  if (typeof example !== 'object' || example === null) return [];
  const choices = ((target.oneOf ?? target.anyOf ?? []) as Schema[]).map(resolve);
  if (choices.length > 0) {
    const fits = choices.map((choice) => undeclared(choice, example, at));
    return fits.find((problems) => problems.length === 0) ?? fits[0]!;
  }
  const properties = Object.assign({}, ...parts.map((part) => part.properties ?? {})) as Record<string, Schema>;
  const open = parts.some((part) => part.additionalProperties);
  return Object.entries(example).flatMap(([key, value]) => {
    const property = properties[key];
    if (!property) return open ? [] : [`${at}/${key} is not declared`];
    return undeclared(property, value, `${at}/${key}`);
  });
};

const check = (schema: Schema, example: unknown): string[] => {
  const validate = compile(schema);
  const invalid = validate(example) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
  return [...invalid, ...undeclared(schema, example)];
};

const medias = (op: Op) => [
  ...Object.entries(op.requestBody?.content ?? {}).map(([type, media]) => ({
    at: 'request',
    type,
    media: media as Media,
  })),
  ...Object.entries(op.responses).flatMap(([status, response]) =>
    Object.entries(response.content ?? {}).map(([type, media]) => ({ at: status, type, media: media as Media })),
  ),
];

describe('examples', () => {
  it('uses no keyword whose meaning differs between draft 4 and Ajv’s dialect', () => {
    expect(JSON.stringify(doc)).not.toMatch(/"exclusive(Minimum|Maximum)":\s*(true|false)/);
  });

  it('gives every component schema an example that validates against it', () => {
    const failures = Object.entries(components).flatMap(([name, schema]) => {
      if (!('example' in schema)) return [`${name}: no example`];
      return check({ $ref: `#/components/schemas/${name}` }, schema.example).map((error) => `${name}${error}`);
    });
    expect(failures).toEqual([]);
  });

  it('gives every JSON request body and response of every operation an example that validates', () => {
    const failures = operations.flatMap(({ method, path, op }) =>
      medias(op)
        .filter(({ type }) => type.endsWith('json'))
        .flatMap(({ at, type, media }) => {
          const where = `${method} ${path} ${at} ${type}`;
          if (!('example' in media)) return [`${where}: no example`];
          return check(media.schema, media.example).map((error) => `${where}: ${error}`);
        }),
    );
    expect(failures).toEqual([]);
  });

  it('gives each problem its real status and a code the response declares for that status', () => {
    const failures = operations.flatMap(({ method, path, op }) =>
      Object.entries(op.responses).flatMap(([status, response]) => {
        const example = response.content?.['application/problem+json']?.example as
          | { status: number; code: keyof typeof problemCodeInfo; instance: string }
          | undefined;
        if (Number(status) < 400) return [];
        const where = `${method} ${path} ${status}`;
        if (!example) return [`${where}: no example`];
        const problems: string[] = [];
        if (example.status !== Number(status)) problems.push(`${where}: status ${example.status}`);
        if (problemCodeInfo[example.code]?.status !== Number(status)) problems.push(`${where}: ${example.code}`);
        if (!example.instance.startsWith('/api/') || example.instance.includes('{')) {
          problems.push(`${where}: instance ${example.instance}`);
        }
        return problems;
      }),
    );
    expect(failures).toEqual([]);
  });

  it('takes a problem example’s code from the response’s own code list when it has one', () => {
    const own = {
      allOf: [
        { $ref: '#/components/schemas/Problem' },
        { type: 'object', properties: { code: { type: 'string', enum: ['FORBIDDEN', 'SIGNUP_DISABLED'] } } },
      ],
    };
    const inline = { type: 'object', properties: { code: { type: 'string', enum: ['EMAIL_TAKEN'] } } };
    expect(problemCodeFor('403', own, 'public', components)).toBe('FORBIDDEN');
    expect(
      problemCodeFor(
        '403',
        { ...own, allOf: [own.allOf[0]!, { ...own.allOf[1]!, properties: { code: { enum: ['SIGNUP_DISABLED'] } } }] },
        'public',
        components,
      ),
    ).toBe('SIGNUP_DISABLED');
    expect(problemCodeFor('409', inline, 'public', components)).toBe('EMAIL_TAKEN');
    // Without a list of its own: the status's generic code, by the route's access level for 403.
    expect(problemCodeFor('403', { $ref: '#/components/schemas/Problem' }, 'premium', components)).toBe(
      'PREMIUM_REQUIRED',
    );
    expect(problemCodeFor('503', { $ref: '#/components/schemas/Problem' }, 'login', components)).toBe('OVERLOADED');
  });

  it('takes every value from the listed Korean household, none made up from a property name', () => {
    expect(addExamples(structuredClone(doc) as never)).toEqual([]);
  });

  it('shows the household in won, with real dates', () => {
    const entry = components.Entry?.example as Record<string, unknown>;
    expect(entry).toMatchObject({ type: 'EXPENSE', amount: 12800, date: '2026-05-14', category: '카페' });
    const problem =
      doc.paths['/api/account/entries/{id}']?.get?.responses['404']?.content?.['application/problem+json']?.example;
    expect(problem).toMatchObject({ status: 404, code: 'NOT_FOUND', instance: '/api/account/entries/42' });
  });
});
