import { z } from 'zod';

/**
 * Closed request input (decision C46): a copy of a request schema in which every object, at every depth, refuses
 * keys it does not name (zod's `strict`; `additionalProperties: false` in the OpenAPI document). An object that
 * says `passthrough` or has a `catchall` keeps it. The copy is made once per schema (by identity), so a schema
 * met in several requests stays one schema, and a schema with nothing to close is returned as it is.
 */
const closedCopies = new WeakMap<z.ZodTypeAny, z.ZodTypeAny>();

/** Typed as the schema it closes: a strict object parses to the same type as a stripping one. */
export const strictInput = <T extends z.ZodTypeAny>(schema: T): T => {
  let closed = closedCopies.get(schema);
  if (!closed) {
    closed = closedCopyOf(schema);
    closedCopies.set(schema, closed);
    closedCopies.set(closed, closed);
  }
  return closed as T;
};

type Def = Record<string, unknown>;
type Hinted = { metaOpenApi?: Record<string, unknown> };

/** The same kind of schema over `changes` to its definition, with the OpenAPI hints of the original (C29). */
const copyWith = (schema: z.ZodTypeAny, changes: Def): z.ZodTypeAny => {
  const Kind = schema.constructor as new (def: Def) => z.ZodTypeAny;
  const copy = new Kind({ ...(schema._def as Def), ...changes });
  const hints = (schema as Hinted).metaOpenApi;
  if (hints) (copy as Hinted).metaOpenApi = { ...hints };
  return copy;
};

/** The definition key of the one schema a wrapper holds. */
const WRAPPED: Array<[new (...args: never[]) => z.ZodTypeAny, string]> = [
  [z.ZodOptional, 'innerType'],
  [z.ZodNullable, 'innerType'],
  [z.ZodDefault, 'innerType'],
  [z.ZodCatch, 'innerType'],
  [z.ZodReadonly, 'innerType'],
  [z.ZodEffects, 'schema'],
  [z.ZodArray, 'type'],
  [z.ZodBranded, 'type'],
  [z.ZodRecord, 'valueType'],
];

/** Kinds whose parts a copy cannot close as written (strict sides of an intersection refuse each other's keys). */
const UNSUPPORTED = [z.ZodIntersection, z.ZodDiscriminatedUnion, z.ZodLazy, z.ZodTuple, z.ZodMap, z.ZodSet];

function closedCopyOf(schema: z.ZodTypeAny): z.ZodTypeAny {
  if (schema instanceof z.ZodObject) return closedObject(schema);
  if (schema instanceof z.ZodUnion) return closedUnion(schema);
  if (schema instanceof z.ZodPipeline) return closedParts(schema, ['in', 'out']);
  const wrapped = WRAPPED.find(([Kind]) => schema instanceof Kind);
  if (wrapped) return closedParts(schema, [wrapped[1]]);
  if (UNSUPPORTED.some((Kind) => schema instanceof Kind)) {
    throw new Error(`strictInput: a ${schema._def.typeName} in a request is not supported; write it as objects`);
  }
  return schema;
}

function closedParts(schema: z.ZodTypeAny, keys: string[]): z.ZodTypeAny {
  const def = schema._def as Def;
  const changes = Object.fromEntries(keys.map((key) => [key, strictInput(def[key] as z.ZodTypeAny)]));
  return keys.every((key) => changes[key] === def[key]) ? schema : copyWith(schema, changes);
}

function closedUnion(schema: z.ZodUnion<z.ZodUnionOptions>): z.ZodTypeAny {
  const options = schema.options.map((option) => strictInput(option));
  return options.every((option, i) => option === schema.options[i]) ? schema : copyWith(schema, { options });
}

function closedObject(schema: z.AnyZodObject): z.ZodTypeAny {
  const shape = schema.shape as z.ZodRawShape;
  const closedShape = Object.fromEntries(Object.entries(shape).map(([key, field]) => [key, strictInput(field)]));
  const catchall = schema._def.catchall as z.ZodTypeAny;
  const closedCatchall = strictInput(catchall);
  const open = schema._def.unknownKeys === 'strip' && catchall instanceof z.ZodNever;
  const fieldsChanged = Object.keys(shape).some((key) => closedShape[key] !== shape[key]);
  if (!open && !fieldsChanged && closedCatchall === catchall) return schema;
  return copyWith(schema, {
    shape: () => closedShape,
    catchall: closedCatchall,
    unknownKeys: open ? 'strict' : schema._def.unknownKeys,
  });
}
