/**
 * fast-check arbitraries built from the served document's schemas (OpenAPI 3.0: `$ref`, `allOf`, `anyOf`,
 * `oneOf`, `nullable`, `enum`, lengths, ranges, patterns, formats, `uniqueItems`). They aim at values the
 * document allows; the suite still checks each generated request with a validator before sending it.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import fc from 'fast-check';
import type { DocumentValidator, Schema } from './document.js';

const TEXT_PATTERN = '^[^\\u0000]*$';
const NON_BLANK_PATTERN = '^\\s*[^\\s\\u0000][^\\u0000]*$';
/** How much longer than its minimum a free-text value grows (long values are the suite's business elsewhere). */
const TEXT_SPAN = 24;
const ARRAY_SPAN = 3;

/** Any code point but NUL (C24): astral characters, combining marks and controls included. */
const textUnit = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }).map((char) => char.replace(/\0/g, '0'));
const spaceUnit = fc.constantFrom(' ', '\t', '\n', '\u00a0', '\u3000');

const codePoints = (value: string) => Array.from(value).length;

function textOf(minLength: number, maxLength: number): fc.Arbitrary<string> {
  return fc.string({ unit: textUnit, minLength, maxLength: Math.min(maxLength, minLength + TEXT_SPAN) });
}

/** Surrounding spaces (the server trims them) around text with at least one non-space character. */
function nonBlankTextOf(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const core = fc
    .string({
      unit: textUnit,
      minLength: Math.max(minLength, 1),
      maxLength: Math.min(maxLength, minLength + TEXT_SPAN),
    })
    .filter((value) => value.trim().length > 0 && codePoints(value.trim()) >= minLength);
  const spaces = fc.string({ unit: spaceUnit, maxLength: 2 });
  return fc
    .tuple(spaces, core, spaces)
    .map(([before, text, after]) => `${before}${text}${after}`)
    .filter((value) => codePoints(value) <= maxLength);
}

/** Whether ajv-formats' full check of `format` passes (a pattern and a format must both hold). */
function formatAllows(format: string | undefined, value: string): boolean {
  const check = format ? (fullFormats as Record<string, unknown>)[format] : undefined;
  if (!check) return true;
  if (check instanceof RegExp) return check.test(value);
  if (typeof check === 'function') return Boolean(check(value));
  const validate = (check as { validate?: unknown }).validate;
  if (validate instanceof RegExp) return validate.test(value);
  return typeof validate === 'function' ? Boolean(validate(value)) : true;
}

/** fast-check cannot generate lookarounds: generate without them, keep what the whole pattern accepts. */
function patternOf(pattern: string, minLength: number, maxLength: number, format?: string): fc.Arbitrary<string> {
  const whole = new RegExp(pattern, 'u');
  const withoutLookarounds = pattern.replace(/\(\?[=!][^()]*\)/g, '');
  let rejected = 0;
  return fc.stringMatching(new RegExp(withoutLookarounds)).filter((value) => {
    const fits =
      whole.test(value) &&
      codePoints(value) >= minLength &&
      codePoints(value) <= maxLength &&
      formatAllows(format, value);
    // A pattern this walker cannot meet must not hang the run: the request check reports the value instead.
    rejected += fits ? 0 : 1;
    return fits || rejected > 2000;
  });
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const minLength = Number(schema.minLength ?? 0);
  const maxLength = Number(schema.maxLength ?? 10_000);
  const pattern = schema.pattern as string | undefined;
  if (pattern === TEXT_PATTERN || (!pattern && !schema.format)) return textOf(minLength, maxLength);
  if (pattern === NON_BLANK_PATTERN) return nonBlankTextOf(minLength, maxLength);
  if (pattern) return patternOf(pattern, minLength, maxLength, schema.format as string | undefined);
  switch (schema.format) {
    case 'email':
      return fc.emailAddress();
    case 'uri':
      return fc.webUrl();
    case 'uri-reference':
      return fc.constantFrom('/x', 'https://example.com/x');
    case 'date':
      return fc.date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }).map((d) => {
        return d.toISOString().slice(0, 10);
      });
    case 'date-time':
      return fc.date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }).map((d) => {
        return d.toISOString();
      });
    default:
      return textOf(minLength, maxLength);
  }
}

const INT32 = 2 ** 31 - 1;

function integerOf(schema: Schema): fc.Arbitrary<number> {
  let min = schema.minimum === undefined ? -Number.MAX_SAFE_INTEGER : Number(schema.minimum);
  let max = schema.maximum === undefined ? Number.MAX_SAFE_INTEGER : Number(schema.maximum);
  if (schema.exclusiveMinimum === true) min = Math.floor(min) + 1;
  if (schema.exclusiveMaximum === true) max = Math.ceil(max) - 1;
  min = Math.ceil(min);
  max = Math.floor(max);
  if (min >= -INT32 - 1 && max <= INT32) return fc.integer({ min, max });
  return fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number);
}

function numberOf(schema: Schema): fc.Arbitrary<number> {
  const min = schema.minimum === undefined ? -1e15 : Number(schema.minimum);
  const max = schema.maximum === undefined ? 1e15 : Number(schema.maximum);
  return fc.double({
    min,
    max,
    noNaN: true,
    noDefaultInfinity: true,
    minExcluded: schema.exclusiveMinimum === true,
    maxExcluded: schema.exclusiveMaximum === true,
  });
}

function arrayOf(schema: Schema, validator: DocumentValidator, depth: number): fc.Arbitrary<unknown[]> {
  const minLength = Number(schema.minItems ?? 0);
  const maxLength = Math.min(Number(schema.maxItems ?? minLength + ARRAY_SPAN), minLength + ARRAY_SPAN);
  const items = arbitraryOf((schema.items as Schema | undefined) ?? {}, validator, depth + 1);
  return schema.uniqueItems
    ? fc.uniqueArray(items, { minLength, maxLength, selector: (item) => JSON.stringify(item) })
    : fc.array(items, { minLength, maxLength });
}

function objectOf(schema: Schema, validator: DocumentValidator, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
  const required = (schema.required as string[] | undefined) ?? [];
  const model = Object.fromEntries(
    Object.entries(properties).map(([key, property]) => [key, arbitraryOf(property, validator, depth + 1)]),
  );
  return fc.record(model, { requiredKeys: required.filter((key) => key in model) });
}

/** `allOf` of objects: their properties and required keys together; a lone member with notes is that member. */
function mergedAllOf(schema: Schema, validator: DocumentValidator): Schema {
  const { allOf, ...outer } = schema;
  const parts = (allOf as Schema[]).map((part) => validator.resolve(part));
  if (parts.length === 1) return { ...parts[0], ...outer };
  const merged: Schema = { ...outer, properties: {}, required: [] };
  for (const part of parts) {
    const { properties, required, ...rest } = part;
    Object.assign(merged, rest);
    Object.assign(merged.properties as object, properties);
    (merged.required as string[]).push(...((required as string[] | undefined) ?? []));
  }
  return merged;
}

/** A value the schema allows (as far as this walker can tell; the request check has the last word). */
export function arbitraryOf(raw: Schema, validator: DocumentValidator, depth = 0): fc.Arbitrary<unknown> {
  const schema = expand(raw, validator);
  const plain = plainArbitraryOf(schema, validator, depth);
  return schema.nullable === true ? fc.option(plain, { nil: null, freq: 6 }) : plain;
}

/** The schema with references followed and `allOf` merged. */
export function expand(raw: Schema, validator: DocumentValidator): Schema {
  const resolved = validator.resolve(raw);
  return resolved.allOf ? expand(mergedAllOf(resolved, validator), validator) : resolved;
}

function plainArbitraryOf(schema: Schema, validator: DocumentValidator, depth: number): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) return fc.oneof(...branches.map((branch) => arbitraryOf(branch, validator, depth + 1)));
  switch (schema.type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return integerOf(schema);
    case 'number':
      return numberOf(schema);
    case 'boolean':
      return fc.boolean();
    case 'array':
      return arrayOf(schema, validator, depth);
    case 'object':
      return objectOf(schema, validator, depth);
    default:
      return schema.properties ? objectOf(schema, validator, depth) : fc.constant('x');
  }
}

/** `count` values of an arbitrary, the same for a seed. */
export const samplesOf = <T>(arbitrary: fc.Arbitrary<T>, seed: number, count: number): T[] =>
  fc.sample(arbitrary, { seed, numRuns: count });
