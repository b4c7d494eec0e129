/**
 * Stable names of the contract's schemas. Each area lists the schemas it names; the OpenAPI builder
 * turns every use of a named schema into `#/components/schemas/<name>`, so client generators get one
 * `Member` type instead of a copy per route. A name is public API for generated clients: renaming it
 * is a breaking change, renaming the TypeScript export is not.
 */
import type { z } from 'zod';

/** Component name → schema. Typed loosely on purpose: the exact types live on the schema exports. */
export type NamedSchemas = Readonly<Record<string, z.ZodTypeAny>>;

/** Merges the registries of several areas; a name or a schema listed twice is a bug. */
export const combineNamedSchemas = (...registries: NamedSchemas[]): NamedSchemas => {
  const combined: Record<string, z.ZodTypeAny> = {};
  const names = new Map<z.ZodTypeAny, string>();
  for (const [name, schema] of registries.flatMap((registry) => Object.entries(registry))) {
    if (name in combined) throw new Error(`schema name ${name} is used twice`);
    const other = names.get(schema);
    if (other) throw new Error(`one schema is named both ${other} and ${name}`);
    combined[name] = schema;
    names.set(schema, name);
  }
  return combined;
};
