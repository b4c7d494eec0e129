import { z } from 'zod';

/** The zod type under wrappers that do not change what a value looks like on the wire. */
export function unwrap(schema: z.ZodTypeAny): z.ZodTypeAny {
  let current = schema;
  for (;;) {
    if (current instanceof z.ZodOptional || current instanceof z.ZodNullable) current = current.unwrap();
    else if (current instanceof z.ZodDefault) current = current.removeDefault();
    else if (current instanceof z.ZodEffects) current = current.innerType();
    else if (current instanceof z.ZodBranded) current = current.unwrap();
    else if (current instanceof z.ZodCatch) current = current.removeCatch();
    else if (current instanceof z.ZodPipeline) current = current._def.in;
    else if (current instanceof z.ZodLazy) current = current.schema;
    else if (current instanceof z.ZodReadonly) current = current._def.innerType;
    else return current;
  }
}

export function isRequired(schema: z.ZodTypeAny): boolean {
  return !schema.isOptional();
}

export type FieldKind = 'string' | 'number' | 'boolean' | 'enum' | 'array' | 'object' | 'other';

export function kindOf(schema: z.ZodTypeAny): FieldKind {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodString) return 'string';
  if (inner instanceof z.ZodNumber || inner instanceof z.ZodBigInt) return 'number';
  if (inner instanceof z.ZodBoolean) return 'boolean';
  if (inner instanceof z.ZodEnum || inner instanceof z.ZodNativeEnum || inner instanceof z.ZodLiteral) return 'enum';
  if (inner instanceof z.ZodArray) return 'array';
  if (inner instanceof z.ZodObject) return 'object';
  return 'other';
}

/** The fields of an object schema (after unwrapping), or none when it is not an object. */
export function fieldsOf(schema: unknown): Array<{ key: string; schema: z.ZodTypeAny }> {
  if (!(schema instanceof z.ZodType)) return [];
  const inner = unwrap(schema);
  if (!(inner instanceof z.ZodObject)) return [];
  return Object.entries(inner.shape as Record<string, z.ZodTypeAny>).map(([key, field]) => ({ key, schema: field }));
}

const CALENDAR_DATE = '2026-01-15';

/** A plausible valid value for a schema, so that one field at a time can be broken around it. */
export function sampleOf(schema: z.ZodTypeAny): unknown {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodString) return sampleString(inner);
  if (inner instanceof z.ZodNumber) return sampleNumber(inner);
  if (inner instanceof z.ZodBigInt) return 1;
  if (inner instanceof z.ZodBoolean) return true;
  if (inner instanceof z.ZodEnum) return inner.options[0];
  if (inner instanceof z.ZodNativeEnum) return Object.values(inner.enum)[0];
  if (inner instanceof z.ZodLiteral) return inner.value;
  if (inner instanceof z.ZodArray) return [sampleOf(inner.element)];
  if (inner instanceof z.ZodObject) return sampleObject(inner);
  if (inner instanceof z.ZodUnion || inner instanceof z.ZodDiscriminatedUnion) {
    return sampleOf((inner.options as z.ZodTypeAny[])[0]!);
  }
  if (inner instanceof z.ZodRecord) return {};
  if (inner instanceof z.ZodNull) return null;
  return 'x';
}

/** Required fields only: the plainest valid body (an optional field can change the route's path, e.g. a honeypot). */
function sampleObject(schema: z.AnyZodObject): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(schema.shape as Record<string, z.ZodTypeAny>)
      .filter(([, field]) => isRequired(field))
      .map(([key, field]) => [key, sampleOf(field)]),
  );
}

function sampleString(schema: z.ZodString): string {
  const checks = schema._def.checks;
  if (checks.some((check) => check.kind === 'email')) return 'robust@nestegg.test';
  if (checks.some((check) => check.kind === 'url')) return 'https://example.com/x';
  if (checks.some((check) => check.kind === 'datetime')) return '2026-01-15T09:30:00.000Z';
  const patterns = checks.flatMap((check) => (check.kind === 'regex' ? [check.regex] : []));
  const fits = (value: string) => patterns.every((pattern) => pattern.test(value));
  if (patterns.length > 0 && fits(CALENDAR_DATE)) return CALENDAR_DATE;
  const min = checks.find((check) => check.kind === 'min');
  const length = min && min.kind === 'min' ? Math.max(min.value, 8) : 8;
  const plain = 'robust-value-xyz'.padEnd(length, 'x').slice(0, Math.max(length, 8));
  // A value every pattern takes: plain text, a compact JWS, digits.
  return [plain, 'robust.value.xyz', '1234567890'].find(fits) ?? plain;
}

function sampleNumber(schema: z.ZodNumber): number {
  const min = schema.minValue;
  const max = schema.maxValue;
  if (min !== null && min !== undefined && min > 1) return Math.ceil(min);
  if (max !== null && max !== undefined && max < 1) return Math.floor(max);
  return 1;
}
