/**
 * Named schemas → `#/components/schemas`. The contract lists its named schemas (`namedSchemas`);
 * while the document is generated each of them carries a marker that @anatine/zod-openapi copies
 * into the JSON schema it produces, and `ComponentCollector` replaces every marked JSON schema by a
 * reference to one component. Identity, not structure, decides: two schemas with the same shape
 * keep their own names.
 */
import { extendApi, generateSchema, type OpenApiZodAny } from '@anatine/zod-openapi';
import { type NamedSchemas, strictInput } from '@nestegg/contract';
import type { z } from 'zod';

export type JsonSchema = { [key: string]: unknown };
/** Request bodies and parameters are read as zod input, responses as zod output. */
export type SchemaMode = 'input' | 'output';

const NAME_KEY = 'x-nestegg-schema-name';
/** What a use of a named schema may add to it: it stays the same schema otherwise. */
const USE_SITE_KEYS = new Set(['description', 'nullable', 'default']);

const isJsonSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Each named schema with the closed copy requests use (C46), under the same name: a request body or query meets
 * the copy. A copy named on its own (the request form of a schema answers share) keeps its own name.
 */
const withRequestForms = (named: NamedSchemas): Array<[string, z.ZodTypeAny]> => {
  const own = new Set(Object.values(named));
  const forms = Object.entries(named).flatMap(([name, schema]): Array<[string, z.ZodTypeAny]> => {
    const closed = strictInput(schema);
    return closed === schema || own.has(closed) ? [] : [[name, closed]];
  });
  return [...Object.entries(named), ...forms];
};

/** Runs `build` while every named schema carries its marker; the schemas are left as they were. */
export const withSchemaMarkers = <T>(named: NamedSchemas, build: () => T): T => {
  // The closed copies are made before any marker is set, so that none copies a marker.
  const marked = withRequestForms(named).map(([name, schema]) => {
    const zod = schema as OpenApiZodAny;
    const before = zod.metaOpenApi;
    // A copy: `extendApi` assigns into the object in place, which would keep the marker in the contract's own
    // hints (`withOpenApi`) after the build.
    zod.metaOpenApi = { ...before };
    extendApi(zod, { [NAME_KEY]: name });
    return { zod, before };
  });
  try {
    return build();
  } finally {
    for (const { zod, before } of marked) {
      if (before === undefined) delete zod.metaOpenApi;
      else zod.metaOpenApi = before;
    }
  }
};

export class ComponentCollector {
  readonly components: Record<string, JsonSchema> = {};
  private readonly modes = new Map<string, SchemaMode>();
  private readonly generated = new Map<string, JsonSchema>();

  constructor(private readonly named: NamedSchemas) {}

  /** A copy of `schema` in which every named schema is a reference. */
  refs(schema: JsonSchema, mode: SchemaMode): JsonSchema {
    const name = schema[NAME_KEY];
    if (typeof name === 'string') return this.reference(name, schema, mode);
    const copy: JsonSchema = { ...schema };
    for (const key of ['items', 'not', 'additionalProperties'] as const) {
      const child = copy[key];
      if (isJsonSchema(child)) copy[key] = this.refs(child, mode);
    }
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      const children = copy[key];
      if (Array.isArray(children)) copy[key] = children.map((child: JsonSchema) => this.refs(child, mode));
    }
    if (isJsonSchema(copy.properties)) {
      copy.properties = Object.fromEntries(
        Object.entries(copy.properties).map(([key, child]) => [key, this.refs(child as JsonSchema, mode)]),
      );
    }
    return copy;
  }

  /** `$ref` to the component, wrapped in `allOf` when the use adds a description or a default, in `anyOf` with null when `nullable`. */
  private reference(name: string, use: JsonSchema, mode: SchemaMode): JsonSchema {
    const own = this.generate(name, mode);
    this.register(name, own, mode);
    const additions = Object.fromEntries(
      Object.entries(use).filter(([key, value]) => key !== NAME_KEY && !sameJson(value, own[key])),
    );
    const foreign = Object.keys(additions).filter((key) => !USE_SITE_KEYS.has(key));
    if (foreign.length > 0) throw new Error(`schema ${name} is changed where it is used (${foreign.join(', ')})`);
    const ref = { $ref: `#/components/schemas/${name}` };
    if (Object.keys(additions).length === 0) return ref;
    // OpenAPI 3.0 ignores siblings of $ref, so a description or default wraps it in `allOf`. `nullable` only
    // widens a `type` in its own object (3.0.3), and `allOf: [$ref]` beside it would still refuse null: null is
    // a branch of its own (C42).
    const { nullable, ...rest } = additions;
    if (nullable) return { ...rest, anyOf: [ref, { type: own.type, nullable: true, enum: [null] }] };
    return { ...rest, allOf: [ref] };
  }

  private register(name: string, own: JsonSchema, mode: SchemaMode): void {
    const registered = this.modes.get(name);
    if (registered === undefined) {
      this.modes.set(name, mode);
      const { [NAME_KEY]: _marker, ...body } = own;
      this.components[name] = this.refs(body, mode);
    } else if (registered !== mode && !sameJson(own, this.generate(name, registered))) {
      throw new Error(
        `schema ${name} differs between requests and responses (a request's objects are closed, C46): name each form on its own`,
      );
    }
  }

  private generate(name: string, mode: SchemaMode): JsonSchema {
    const key = `${mode} ${name}`;
    const cached = this.generated.get(key);
    if (cached) return cached;
    const schema = this.named[name];
    if (!schema) throw new Error(`no schema named ${name}`);
    // A request reads the closed form (C46); an answer stays open to fields added later.
    const json = generateSchema(mode === 'input' ? strictInput(schema) : schema, mode === 'output') as JsonSchema;
    this.generated.set(key, json);
    return json;
  }
}

/** Throws when a marker survived (a place of the document the collector did not visit). */
export const assertNoMarkers = (document: unknown): void => {
  const text = JSON.stringify(document);
  const at = text.indexOf(NAME_KEY);
  if (at >= 0) throw new Error(`a named schema was not turned into a reference: …${text.slice(at - 200, at + 80)}…`);
};
