/** Issue 36: request bodies and queries are closed at every depth (C46); one message per bad value (C47). */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CoercedIdSchema, DateSchema, nonBlankText, PageQuerySchema, strictInput, withOpenApi } from '../src/common.js';
import { routes } from './routes.js';

/** Where an object of the schema still drops keys it does not name (`strip`), by path; none when closed. */
function openObjects(schema: z.ZodTypeAny, at = '$'): string[] {
  if (schema instanceof z.ZodObject) {
    const own = schema._def.unknownKeys === 'strip' && schema._def.catchall instanceof z.ZodNever ? [at] : [];
    const fields = Object.entries(schema.shape as z.ZodRawShape);
    return [...own, ...fields.flatMap(([key, field]) => openObjects(field, `${at}.${key}`))];
  }
  if (schema instanceof z.ZodUnion) return schema.options.flatMap((option: z.ZodTypeAny) => openObjects(option, at));
  const def = schema._def as Record<string, unknown>;
  const inner = ['innerType', 'schema', 'type', 'valueType'].map((key) => def[key]).find((v) => v instanceof z.ZodType);
  return inner ? openObjects(inner as z.ZodTypeAny, at) : [];
}

const Wheel = z.object({ size: z.number() });
const Bike = z
  .object({
    name: z.string().describe('Its name'),
    wheels: z.array(Wheel).max(2).default([]),
    frame: z.object({ colour: z.string() }).nullable().optional(),
    parts: z.record(z.object({ weight: z.number() })).optional(),
    kind: z.union([z.object({ road: z.boolean() }), z.literal('none')]),
    extras: z.object({ note: z.string() }).passthrough().optional(),
  })
  .refine((bike) => bike.name !== 'x', 'not x');

describe('strictInput', () => {
  const closed = strictInput(Bike);
  const valid = {
    name: 'b',
    wheels: [{ size: 1 }],
    frame: { colour: 'red' },
    parts: { bell: { weight: 1 } },
    kind: 'none',
  };

  it('closes every object at every depth: fields, array items, records, union branches', () => {
    expect(openObjects(Bike)).toEqual(['$', '$.wheels', '$.frame', '$.parts', '$.kind']);
    expect(openObjects(closed)).toEqual([]);
    expect(closed.safeParse(valid).success).toBe(true);
    const paths = (value: unknown) => closed.safeParse(value).error?.issues.map((issue) => issue.path.join('.'));
    expect(paths({ ...valid, bell: true })).toEqual(['']);
    expect(paths({ ...valid, wheels: [{ size: 1, spokes: 32 }] })).toEqual(['wheels.0']);
    expect(paths({ ...valid, frame: { colour: 'red', weight: 2 } })).toEqual(['frame']);
    expect(paths({ ...valid, parts: { bell: { weight: 1, loud: true } } })).toEqual(['parts.bell']);
  });

  it('keeps an object that says passthrough open, and the rest of the schema as it was', () => {
    expect(closed.safeParse({ ...valid, extras: { note: 'n', more: 1 } }).data?.extras).toEqual({ note: 'n', more: 1 });
    expect(closed.safeParse({ ...valid, name: 'x' }).success).toBe(false);
    expect((closed as unknown as z.ZodEffects<z.AnyZodObject>).innerType().shape.name.description).toBe('Its name');
    expect(Bike.safeParse({ ...valid, bell: true }).success).toBe(true);
  });

  it('makes one copy per schema, returns what has nothing to close, and keeps OpenAPI hints', () => {
    expect(strictInput(Bike)).toBe(closed);
    expect(strictInput(closed)).toBe(closed);
    const name = z.string();
    expect(strictInput(name)).toBe(name);
    const hinted = withOpenApi(z.array(Wheel), { uniqueItems: true });
    expect((strictInput(hinted) as unknown as { metaOpenApi: unknown }).metaOpenApi).toEqual({ uniqueItems: true });
    expect(strictInput(z.object({ wheel: Wheel })).shape.wheel).toBe(strictInput(Wheel));
  });

  it('refuses a kind it cannot close as written', () => {
    expect(() => strictInput(Wheel.and(z.object({ rim: z.string() })))).toThrow(/ZodIntersection/);
  });
});

describe('the contract', () => {
  const openParts = routes.flatMap(({ key, route }) =>
    (['body', 'query'] as const).flatMap((part) => {
      const schema = (route as Record<string, unknown>)[part];
      return schema instanceof z.ZodType ? openObjects(schema).map((at) => `${key} ${part} ${at}`) : [];
    }),
  );

  it('closes every request body and query, except the multipart forms, whose file alone is read', () => {
    expect(routes.length).toBeGreaterThan(100);
    expect(openParts).toEqual([
      'board.uploadImage body $',
      'ledger.receipts.recognize body $',
      'ledger.imports.upload body $',
    ]);
  });

  it('keeps the store push envelope open: the push service sends fields it does not model', () => {
    const body = routes.find(({ key }) => key === 'billing.storeNotification')!.route;
    const parsed = (body as { body: z.ZodTypeAny }).body.safeParse({
      message: { data: '', messageId: 'm', orderingKey: '' },
      deliveryAttempt: 2,
    });
    expect(parsed.data).toMatchObject({ deliveryAttempt: 2, message: { orderingKey: '' } });
  });
});

describe('one message per bad value (C47)', () => {
  const messages = (schema: z.ZodTypeAny, value: unknown) =>
    schema.safeParse(value).error?.issues.map((i) => i.message);

  it('a date: its shape, or else its calendar', () => {
    expect(messages(DateSchema, 'yesterday')).toEqual(['expected a date YYYY-MM-DD']);
    expect(messages(DateSchema, '2026-02-30')).toEqual(['not a calendar date']);
  });

  it('blank text: the blank rule, not its length besides', () => {
    expect(messages(nonBlankText().max(3), '      ')).toEqual(['must contain a character other than white space']);
  });
});

describe('numbers from a URL (C47)', () => {
  const messages = (schema: z.ZodTypeAny, value: unknown) =>
    new Set(schema.safeParse(value).error?.issues.map((i) => i.message));

  it('an id or a page says what it must be, whatever was sent', () => {
    for (const sent of ['abc', '0', '1.5', '2147483648', 'Infinity']) {
      expect(messages(CoercedIdSchema, sent), sent).toEqual(
        new Set(['must be a positive whole number (an id) up to 2147483647']),
      );
    }
    expect(messages(PageQuerySchema, { page: 'abc' })).toEqual(
      new Set(['must be a whole number from 1 to 2147483647']),
    );
  });
});
