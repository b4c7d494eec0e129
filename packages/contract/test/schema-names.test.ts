import { isZodType } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { combineNamedSchemas, MemberResponseSchema, namedSchemas, ProblemSchema } from '../src/index.js';

describe('named schemas', () => {
  it('names schemas in PascalCase', () => {
    expect(Object.keys(namedSchemas).length).toBeGreaterThan(80);
    for (const [name, schema] of Object.entries(namedSchemas)) {
      expect(name).toMatch(/^[A-Z][A-Za-z0-9]+$/);
      expect(isZodType(schema), name).toBe(true);
    }
    expect(namedSchemas.Member).toBe(MemberResponseSchema);
    expect(namedSchemas.Problem).toBe(ProblemSchema);
  });

  it('refuses a name or a schema listed twice', () => {
    const a = z.object({ a: z.string() });
    expect(() => combineNamedSchemas({ A: a }, { A: z.string() })).toThrow(/A is used twice/);
    expect(() => combineNamedSchemas({ A: a }, { B: a })).toThrow(/named both A and B/);
    expect(combineNamedSchemas({ A: a }, { B: z.string() })).toMatchObject({ A: a });
  });
});
