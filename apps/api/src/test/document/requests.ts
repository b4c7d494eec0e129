/**
 * Requests built from one operation of the served document: values it allows (from the generators, checked
 * by the validator) and, from one of them, values it forbids, one field at a time.
 */
import fc from 'fast-check';
import type { DocumentValidator, Operation, Parameter, Schema } from './document.js';
import { arbitraryOf, expand, samplesOf } from './generate.js';

/** What a request carries, as typed values (the wire form is made when it is sent). */
export interface DocRequest {
  params: Record<string, Record<string, unknown>>;
  body?: unknown;
  mediaType?: string;
}

export interface ForbiddenRequest {
  name: string;
  request: DocRequest;
}

/** Ids of rows the caller owns, by the path template that names them (`/api/account/wallets/{id}`). */
export type IdPool = Map<string, number[]>;

const JSON_MEDIA = 'application/json';
const MULTIPART = 'multipart/form-data';
const MISSING = Symbol('missing');
/** Past this a body field's overlong value would only test the body limit (413), which the other suite does. */
const LONGEST_OVERLONG = 100_000;

const bodyPointerOf = (op: Operation, mediaType: string) =>
  `${op.pointer}/requestBody/content/${mediaType.replace(/~/g, '~0').replace(/\//g, '~1')}/schema`;
const parameterPointerOf = (op: Operation, index: number) => `${op.pointer}/parameters/${index}/schema`;

export const mediaTypeOf = (op: Operation): string | undefined => Object.keys(op.requestBody?.content ?? {})[0];

/** The path template that names the id in `{param}`: the path up to and including it. */
export const poolKeyOf = (path: string, param: string) => path.slice(0, path.indexOf(`{${param}}`) + param.length + 2);

/** A query, path or header value as a server reads it back from its text. */
export function fromWire(text: string, schema: Schema): unknown {
  if ((schema.type === 'integer' || schema.type === 'number') && /^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (schema.type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/** A query parameter no operation lists: the document's `info` says requests are closed (C46). */
const UNLISTED_PARAMETER = 'unlistedParameter';

/** Why the request is not one the document allows, or null. */
export function requestError(op: Operation, request: DocRequest, validator: DocumentValidator): string | null {
  const listed = new Set(op.parameters.filter((p) => p.in === 'query').map((p) => p.name));
  const unlisted = Object.keys(request.params.query ?? {}).find((name) => !listed.has(name));
  if (unlisted) return `query ${unlisted} is not a parameter of the operation`;
  for (const [index, parameter] of op.parameters.entries()) {
    const value = request.params[parameter.in]?.[parameter.name];
    if (value === undefined) {
      if (parameter.required) return `${parameter.in} ${parameter.name} is missing`;
      continue;
    }
    const schema = validator.resolve(parameter.schema);
    const error = validator.errorOf(parameterPointerOf(op, index), fromWire(String(value), schema));
    if (error) return `${parameter.in} ${parameter.name}: ${error}`;
  }
  const mediaType = mediaTypeOf(op);
  if (!mediaType) return null;
  if (request.body === undefined) return op.requestBody?.required ? 'the body is missing' : null;
  if (mediaType !== JSON_MEDIA) return null;
  const error = validator.errorOf(bodyPointerOf(op, mediaType), request.body);
  return error ? `body: ${error}` : null;
}

const singular = (plural: string) => plural.replace(/ies$/, 'y').replace(/s$/, '');

/** The pool that a body field such as `walletId` or `tagIds` names, preferring the operation's own area. */
function poolForField(field: string, op: Operation, pool: IdPool): number[] | undefined {
  const match = /^(.*?)(Id|Ids)$/.exec(field);
  if (!match) return undefined;
  const name = match[1]!.toLowerCase();
  const area = op.path.split('/').slice(0, 3).join('/');
  const candidates = [...pool.entries()].filter(([template, ids]) => {
    const collection = template.split('/').at(-2) ?? '';
    return ids.length > 0 && template.endsWith('/{id}') && name.endsWith(singular(collection).toLowerCase());
  });
  const chosen = candidates.find(([template]) => template.startsWith(area)) ?? candidates[0];
  return chosen?.[1];
}

/** Puts owned ids into id fields (`walletId`, `tagIds`), so that allowed values reach the stored-state rules. */
function withOwnedIds(value: unknown, op: Operation, pool: IdPool, pick: number): unknown {
  if (Array.isArray(value)) return value.map((item) => withOwnedIds(item, op, pool, pick));
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => {
      const ids = poolForField(key, op, pool);
      if (ids && typeof field === 'number') return [key, ids[pick % ids.length]];
      if (ids && Array.isArray(field) && field.every((item) => typeof item === 'number')) {
        return [key, [...new Set(field.map((_, i) => ids[(pick + i) % ids.length]!))]];
      }
      return [key, withOwnedIds(field, op, pool, pick)];
    }),
  );
}

function parameterArbitrary(op: Operation, parameter: Parameter, validator: DocumentValidator, pool: IdPool) {
  const owned = parameter.in === 'path' ? pool.get(poolKeyOf(op.path, parameter.name)) : undefined;
  if (owned?.length) return fc.constantFrom(...owned);
  const value = arbitraryOf(parameter.schema, validator);
  return parameter.required ? value : fc.option(value, { nil: undefined, freq: 2 });
}

function requestArbitrary(op: Operation, validator: DocumentValidator, pool: IdPool): fc.Arbitrary<DocRequest> {
  const params = fc.tuple(...op.parameters.map((p) => parameterArbitrary(op, p, validator, pool)));
  const mediaType = mediaTypeOf(op);
  const bodySchema = mediaType ? op.requestBody!.content[mediaType]!.schema : undefined;
  const body =
    mediaType === MULTIPART
      ? fc.constant(multipartValues(bodySchema!, validator))
      : bodySchema
        ? arbitraryOf(bodySchema, validator)
        : fc.constant(undefined);
  return fc.tuple(params, body).map(([values, bodyValue]) => {
    const grouped: DocRequest['params'] = {};
    op.parameters.forEach((parameter, index) => {
      if (values[index] === undefined || values[index] === null) return;
      grouped[parameter.in] ??= {};
      grouped[parameter.in]![parameter.name] = values[index];
    });
    return { params: grouped, ...(mediaType ? { body: bodyValue, mediaType } : {}) };
  });
}

/** A multipart body: each binary field a small PNG, each other field its first allowed value. */
function multipartValues(schema: Schema, validator: DocumentValidator): Record<string, unknown> {
  const properties = (expand(schema, validator).properties as Record<string, Schema> | undefined) ?? {};
  return Object.fromEntries(
    Object.entries(properties).map(([key, property]) => [
      key,
      property.format === 'binary' ? PNG_FILE : samplesOf(arbitraryOf(property, validator), 1, 1)[0],
    ]),
  );
}

/** A 1×1 transparent PNG: the plainest file an image field can hold. */
export const PNG_FILE = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * `count` requests the document allows (owned ids in path and id fields where the caller has some), each
 * checked by the validator; `invalid` lists the generated requests the validator refused (a generator gap).
 */
export function allowedRequests(
  op: Operation,
  validator: DocumentValidator,
  pool: IdPool,
  seed: number,
  count: number,
): { requests: DocRequest[]; invalid: string[] } {
  const requests: DocRequest[] = [];
  const invalid: string[] = [];
  const candidates = samplesOf(requestArbitrary(op, validator, pool), seed, count * 4);
  for (const [index, candidate] of candidates.entries()) {
    if (requests.length === count) break;
    const request =
      candidate.body === undefined || candidate.mediaType !== JSON_MEDIA || index % 3 === 2
        ? candidate
        : { ...candidate, body: withOwnedIds(candidate.body, op, pool, index) };
    const error = requestError(op, request, validator);
    if (error) invalid.push(`${error} in ${JSON.stringify(request).slice(0, 300)}`);
    else requests.push(request);
  }
  return { requests, invalid: requests.length === count ? [] : invalid.slice(0, 3) };
}

const repeatToLength = (value: string, length: number) => {
  const base = value.length > 0 ? value : 'x';
  return Array.from(base.repeat(Math.ceil(length / Math.max(1, Array.from(base).length)) + 1))
    .slice(0, length)
    .join('');
};

const BAD_PATTERN_CANDIDATES = ['', ' ', '!', 'a\u0000b', 'zz zz', '0', '-', '..'];
const BAD_FORMATS: Record<string, string> = {
  date: '2026-02-30',
  'date-time': '2026-02-30T10:00:00Z',
  email: 'not-an-address',
};

/** Values the schema forbids, each with a label: wrong type, past a bound, bad pattern, format or enum, null. */
export function forbiddenValuesOf(raw: Schema, value: unknown, validator: DocumentValidator, onWire: boolean) {
  const schema = expand(raw, validator);
  const out: Array<{ label: string; value: unknown }> = [];
  const add = (label: string, forbidden: unknown) => out.push({ label, value: forbidden });
  if (schema.nullable !== true && !onWire) add('null', null);
  if (Array.isArray(schema.enum)) add('not in the enum', 'NOT_IN_THE_ENUM');
  switch (schema.type) {
    case 'string': {
      if (!onWire) add('a number instead of a string', 12345);
      const text = typeof value === 'string' ? value : 'x';
      // No spaces in it: the server trims text, and the case is about the length, not the trimming.
      if (schema.maxLength !== undefined && Number(schema.maxLength) < LONGEST_OVERLONG) {
        add('one character too long', repeatToLength(text.replace(/\s/g, '') || 'x', Number(schema.maxLength) + 1));
      }
      if (Number(schema.minLength ?? 0) > 0) {
        add(
          'one character too short',
          Array.from(text)
            .slice(0, Number(schema.minLength) - 1)
            .join(''),
        );
      }
      if (typeof schema.pattern === 'string') {
        const pattern = new RegExp(schema.pattern, 'u');
        const bad = BAD_PATTERN_CANDIDATES.find((candidate) => !pattern.test(candidate) && !(onWire && !candidate));
        if (bad !== undefined) add(`not matching its pattern (${JSON.stringify(bad)})`, bad);
      }
      const badFormat = BAD_FORMATS[String(schema.format)];
      if (badFormat) add(`an impossible ${schema.format}`, badFormat);
      break;
    }
    case 'integer':
    case 'number':
      add('text instead of a number', onWire ? 'abc' : String(value ?? 1));
      if (schema.type === 'integer') add('a fraction', 1.5);
      if (schema.maximum !== undefined) add('past its maximum', Number(schema.maximum) + 1);
      if (schema.minimum !== undefined) add('below its minimum', Number(schema.minimum) - 1);
      break;
    case 'boolean':
      add('text instead of a boolean', onWire ? 'yes' : 'true');
      break;
    case 'array': {
      if (!onWire) add('an object instead of an array', { 0: 'x' });
      const items = Array.isArray(value) ? value : [];
      if (schema.maxItems !== undefined && Number(schema.maxItems) < 1000 && items.length > 0) {
        add(
          'one item too many',
          Array.from({ length: Number(schema.maxItems) + 1 }, (_, i) => items[i % items.length]),
        );
      }
      if (Number(schema.minItems ?? 0) > 0) add('one item too few', items.slice(0, Number(schema.minItems) - 1));
      if (schema.uniqueItems && items.length > 0) add('a repeated item', [...items, items[0]]);
      break;
    }
    case 'object':
      if (!onWire) add('an array instead of an object', []);
      break;
  }
  return out;
}

/** The properties of an object schema, with whether each is required (empty when it is not an object). */
function propertiesOf(raw: Schema, validator: DocumentValidator) {
  const schema = expand(raw, validator);
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
  return {
    closed: schema.additionalProperties === false,
    fields: Object.entries(properties).map(([key, field]) => ({ key, schema: field, required: required.has(key) })),
  };
}

/** One field of a JSON value changed at a time, down to nested objects and the first item of arrays. */
function bodyMutations(
  raw: Schema,
  value: unknown,
  validator: DocumentValidator,
  at: string,
  depth: number,
): Array<{ name: string; value: unknown }> {
  const out = forbiddenValuesOf(raw, value, validator, false).map(({ label, value: v }) => ({
    name: `${at}: ${label}`,
    value: v,
  }));
  if (depth > 2 || value === null || typeof value !== 'object') return out;
  if (Array.isArray(value)) {
    const items = expand(raw, validator).items as Schema | undefined;
    if (!items || value.length === 0) return out;
    for (const inner of bodyMutations(items, value[0], validator, `${at}[0]`, depth + 1)) {
      out.push({ name: inner.name, value: [inner.value, ...value.slice(1)] });
    }
    return out;
  }
  const record = value as Record<string, unknown>;
  const { closed, fields } = propertiesOf(raw, validator);
  if (closed) out.push({ name: `${at}: an unknown property`, value: { ...record, unknownProperty: 'x' } });
  for (const field of fields) {
    if (field.required) {
      const { [field.key]: _gone, ...without } = record;
      out.push({ name: `${at}.${field.key}: missing`, value: without });
    }
    const current = field.key in record ? record[field.key] : undefined;
    for (const inner of bodyMutations(field.schema, current, validator, `${at}.${field.key}`, depth + 1)) {
      out.push({ name: inner.name, value: { ...record, [field.key]: inner.value } });
    }
  }
  return out;
}

/** A query parameter the operation does not list, on an operation that reads its query (C46). */
function unlistedQueryParameter(op: Operation, base: DocRequest): ForbiddenRequest[] {
  if (!op.parameters.some((parameter) => parameter.in === 'query')) return [];
  const query = { ...base.params.query, [UNLISTED_PARAMETER]: 'x' };
  return [{ name: 'query: a parameter it does not list', request: { ...base, params: { ...base.params, query } } }];
}

function parameterMutations(op: Operation, base: DocRequest, validator: DocumentValidator): ForbiddenRequest[] {
  return op.parameters.flatMap((parameter) => {
    const place = parameter.in;
    const current = base.params[place]?.[parameter.name];
    const withValue = (value: unknown): DocRequest => {
      const params = { ...base.params, [place]: { ...base.params[place] } };
      if (value === MISSING) delete params[place]![parameter.name];
      else params[place]![parameter.name] = value;
      return { ...base, params };
    };
    const changed = forbiddenValuesOf(parameter.schema, current, validator, true)
      .filter(({ value }) => !(place === 'path' && String(value) === ''))
      .map(({ label, value }) => ({ name: `${place} ${parameter.name}: ${label}`, request: withValue(value) }));
    const missing =
      parameter.required && place !== 'path'
        ? [{ name: `${place} ${parameter.name}: missing`, request: withValue(MISSING) }]
        : [];
    return [...missing, ...changed];
  });
}

function withoutOptionalHeaders(op: Operation, request: DocRequest): DocRequest {
  const optional = new Set(op.parameters.filter((p) => p.in === 'header' && !p.required).map((p) => p.name));
  const header = Object.fromEntries(
    Object.entries(request.params.header ?? {}).filter(([name]) => !optional.has(name)),
  );
  return { ...request, params: { ...request.params, header } };
}

/** Requests the document forbids, each one field away from `base`, verified forbidden by the validator. */
export function forbiddenRequests(
  op: Operation,
  allowed: DocRequest,
  validator: DocumentValidator,
): ForbiddenRequest[] {
  // An optional header such as Idempotency-Key is left out: reusing the allowed request's key with another
  // body is refused for the key (422) before the body is read.
  const base = withoutOptionalHeaders(op, allowed);
  const mediaType = mediaTypeOf(op);
  const body =
    mediaType === JSON_MEDIA && base.body !== undefined
      ? bodyMutations(op.requestBody!.content[mediaType]!.schema, base.body, validator, 'body', 0).map(
          ({ name, value }) => ({ name, request: { ...base, body: value } }),
        )
      : [];
  const missingBody =
    mediaType && op.requestBody?.required ? [{ name: 'body: missing', request: { ...base, body: undefined } }] : [];
  return [
    ...unlistedQueryParameter(op, base),
    ...parameterMutations(op, base, validator),
    ...missingBody,
    ...body,
  ].filter(({ request }) => requestError(op, request, validator) !== null);
}
