/**
 * Issue 20: the document declares every rule the server applies to input (C26–C29), so a client that follows the
 * document is never refused for a value the document allows.
 */
import { DATE_PATTERN, INSTANT_PATTERN, NON_BLANK_PATTERN } from '@nestegg/contract';
import { describe, expect, it } from 'vitest';
import { components, doc, operations, opFor, type Schema } from './document.js';

const resolve = (schema: Schema): Schema => {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  const target = components[name];
  if (!target) throw new Error(`no component ${name}`);
  return resolve(target);
};

/** Every schema reachable from `root` (refs followed once each), with where it was met. */
const walk = (root: Schema, at: string, seen = new Set<Schema>()): Array<{ at: string; schema: Schema }> => {
  const schema = resolve(root);
  if (seen.has(schema)) return [];
  seen.add(schema);
  const found = [{ at, schema }];
  const children: Array<[string, unknown]> = [
    ['[]', schema.items],
    ...Object.entries((schema.properties as Record<string, Schema> | undefined) ?? {}).map(
      ([key, child]) => [`.${key}`, child] as [string, unknown],
    ),
    ...(['allOf', 'anyOf', 'oneOf'] as const).flatMap((key) =>
      ((schema[key] as Schema[] | undefined) ?? []).map((child, i) => [`.${key}[${i}]`, child] as [string, unknown]),
    ),
  ];
  for (const [suffix, child] of children) {
    if (child && typeof child === 'object') found.push(...walk(child as Schema, `${at}${suffix}`, seen));
  }
  return found;
};

/** Every schema a client sends: parameters and request bodies of every operation. */
const inputSchemas = operations.flatMap(({ method, path, op }) => [
  ...(op.parameters ?? []).flatMap((p) => (p.schema ? walk(p.schema, `${method} ${path} ${p.in}.${p.name}`) : [])),
  ...Object.values(op.requestBody?.content ?? {}).flatMap((media) => walk(media.schema, `${method} ${path} body`)),
]);
const allSchemas = [...inputSchemas, ...Object.entries(components).flatMap(([name, schema]) => walk(schema, name))];
const strings = allSchemas.filter(({ schema }) => schema.type === 'string');
const matches = (schema: Schema, value: string) => new RegExp(schema.pattern as string).test(value);

describe('dates and instants (C26)', () => {
  const dates = strings.filter(({ schema }) => schema.pattern === DATE_PATTERN.source);

  it('every date is `format: date` with a pattern of the years 0001..9999', () => {
    expect(dates.length).toBeGreaterThan(20);
    for (const { at, schema } of dates) {
      expect(schema.format, at).toBe('date');
      expect(matches(schema, '0000-01-01'), at).toBe(false);
      expect(matches(schema, '0001-01-01'), at).toBe(true);
      expect(matches(schema, '9999-12-31'), at).toBe(true);
    }
  });

  it('no string pattern of the document allows the year 0000', () => {
    for (const { at, schema } of strings) {
      if (typeof schema.pattern !== 'string' || !schema.pattern.startsWith('^\\d{4}-')) continue;
      throw new Error(`${at}: ${schema.pattern} allows the year 0000`);
    }
    const instants = strings.filter(({ schema }) => schema.pattern === INSTANT_PATTERN.source);
    expect(instants.length).toBeGreaterThan(20);
    for (const { at, schema } of instants) {
      expect(schema.format, at).toBe('date-time');
      expect(matches(schema, '0000-06-01T00:00:00Z'), at).toBe(false);
      expect(matches(schema, '0001-06-01T00:00:00Z'), at).toBe(true);
    }
  });

  it('the request fields of issue 20 are dates', () => {
    const entryDate = resolve(opFor('POST', '/api/account/entries').requestBody!.content['application/json']!.schema);
    expect(resolve((entryDate.properties as Record<string, Schema>).date!).format).toBe('date');
    const from = opFor('GET', '/api/account/entries').parameters!.find((p) => p.name === 'from')!;
    expect(from.schema).toMatchObject({ format: 'date', pattern: DATE_PATTERN.source });
  });
});

describe('whitespace-only strings (C27)', () => {
  it('every trimmed, required text field declares a pattern that needs a non-space character', () => {
    const required = inputSchemas.filter(
      ({ schema }) => schema.type === 'string' && Number(schema.minLength ?? 0) >= 1 && !schema.enum,
    );
    // Not trimmed (the contract takes them as sent, spaces included): passwords, provider and store tokens.
    const untrimmed =
      /password|body\.(idToken|identityToken|purchaseToken)$|reauthenticate body\.token$|message\.messageId$/i;
    const trimmed = required.filter(({ at }) => !untrimmed.test(at));
    expect(trimmed.length).toBeGreaterThan(15);
    for (const { at, schema } of trimmed) {
      expect(typeof schema.pattern, at).toBe('string');
      expect(matches(schema, ' \t\n '), at).toBe(false);
      if (schema.pattern === NON_BLANK_PATTERN.source) expect(matches(schema, ' a '), at).toBe(true);
    }
  });
});

describe('uniqueness, ranges and e-mail (C29)', () => {
  it('every reorder body and the tag groups boards declare uniqueItems', () => {
    const reorders = operations.filter(({ path }) => path.endsWith('/reorder'));
    expect(reorders.length).toBeGreaterThan(4);
    for (const { method, path, op } of reorders) {
      const body = resolve(op.requestBody!.content['application/json']!.schema);
      expect((body.properties as Record<string, Schema>).ids, `${method} ${path}`).toMatchObject({
        type: 'array',
        uniqueItems: true,
      });
    }
    for (const path of ['/api/board/tag-groups'] as const) {
      const body = resolve(opFor('POST', path).requestBody!.content['application/json']!.schema);
      expect((body.properties as Record<string, Schema>).boards).toMatchObject({ uniqueItems: true });
    }
  });

  it('a trade quantity must be greater than 0', () => {
    const body = resolve(opFor('POST', '/api/account/trades').requestBody!.content['application/json']!.schema);
    const quantity = (body.properties as Record<string, Schema>).quantity!;
    const branches = ((quantity.anyOf ?? quantity.oneOf) as Schema[]).map(resolve);
    const number = branches.find((b) => b.type === 'integer')!;
    expect(number.minimum).toBe(1);
    const decimal = branches.find((b) => b.type === 'string')!;
    for (const zero of ['0', '0.0', '000.000000']) expect(matches(decimal, zero), zero).toBe(false);
    for (const positive of ['0.000001', '1', '999999999999.999999']) expect(matches(decimal, positive)).toBe(true);
  });

  it('e-mail fields declare the pattern the server applies', () => {
    for (const path of ['/api/auth/signup', '/api/auth/login']) {
      const body = resolve(opFor('POST', path).requestBody!.content['application/json']!.schema);
      const email = resolve((body.properties as Record<string, Schema>).email!);
      expect(email.format).toBe('email');
      expect(matches(email, ' Name.Surname+tag@Example.com ')).toBe(true);
      for (const refused of ['"quoted"@example.com', 'a@[127.0.0.1]', 'a..b@example.com', 'a@example']) {
        expect(matches(email, refused), refused).toBe(false);
      }
    }
  });
});

describe('security (item 9)', () => {
  it('declares the bearer scheme once and each operation from its metadata', () => {
    expect(doc.components?.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
  });
});

describe('405 and Location (C30, C31)', () => {
  it('every operation declares 405 METHOD_NOT_ALLOWED with a required Allow header', () => {
    for (const { method, path, op } of operations) {
      expect(op.responses['405']?.headers?.Allow, `${method} ${path}`).toMatchObject({ required: true });
    }
  });

  it('every 201 declares a required Location', () => {
    const created = operations.filter(({ op }) => op.responses['201']);
    expect(created.length).toBeGreaterThan(15);
    for (const { method, path, op } of created) {
      expect(op.responses['201']!.headers?.Location, `${method} ${path}`).toMatchObject({
        required: true,
        schema: { type: 'string', format: 'uri-reference' },
      });
    }
  });
});
