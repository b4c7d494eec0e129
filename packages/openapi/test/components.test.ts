import { generateSchema } from '@anatine/zod-openapi';
import { MemberResponseSchema, namedSchemas, ProblemCodeSchema } from '@nestegg/contract';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ComponentCollector, type JsonSchema, withSchemaMarkers } from '../src/components.js';
import { buildOpenApiDocument } from '../src/index.js';
import { components, doc, operations, opFor, type Schema, successSchema, withoutExamples } from './document.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Every inline (not referenced) object schema of the document, with where it sits. */
const inlineObjects = (): Array<{ at: string; json: string }> => {
  const found: Array<{ at: string; json: string }> = [];
  const visit = (node: unknown, at: string, isComponentRoot = false) => {
    if (typeof node !== 'object' || node === null) return;
    const schema = node as Schema;
    if (!isComponentRoot && schema.type === 'object' && schema.properties)
      found.push({ at, json: JSON.stringify(node) });
    for (const [key, child] of Object.entries(node)) visit(child, `${at}/${key}`);
  };
  visit(doc.paths, '#/paths');
  for (const [name, schema] of Object.entries(components)) visit(schema, `#/components/schemas/${name}`, true);
  return found;
};

describe('named schemas', () => {
  it('become components, every one of them used', () => {
    expect(Object.keys(components).sort()).toEqual(Object.keys(namedSchemas).sort());
  });

  it('are referenced, not copied: Member is one component', () => {
    expect(successSchema(opFor('GET', '/api/auth/profile'))).toEqual(ref('Member'));
    expect(successSchema(opFor('POST', '/api/auth/login'))).toEqual(ref('Session'));
    expect((components.Session!.properties as Record<string, Schema>).member).toEqual(ref('Member'));
    expect(successSchema(opFor('GET', '/api/admin/members'))).toEqual(ref('AdminMemberPage'));
    expect((components.AdminMemberPage!.properties as Record<string, Schema>).items).toEqual({
      type: 'array',
      items: ref('AdminMember'),
    });
    expect(JSON.stringify(withoutExamples(doc.paths))).not.toContain('"idpOnePicture"');
  });

  it('keep their own name when two share a shape', () => {
    expect(successSchema(opFor('POST', '/api/admin/default-categories'), '201')).toEqual(ref('DefaultCategory'));
    expect(successSchema(opFor('POST', '/api/account/categories'), '201')).toEqual(ref('Category'));
  });

  it('give every JSON success body a name', () => {
    for (const { path, method, op } of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        const schema = response.content?.['application/json']?.schema;
        if (Number(status) < 300 && schema) expect(schema.$ref, `${method} ${path} ${status}`).toBeDefined();
      }
    }
  });

  it('leave no inline object written twice', () => {
    const places = new Map<string, string[]>();
    for (const { at, json } of inlineObjects()) places.set(json, [...(places.get(json) ?? []), at]);
    expect([...places.values()].filter((at) => at.length > 1)).toEqual([]);
  });

  it('describe each problem code', () => {
    const problem = components.Problem!.properties as Record<string, Schema>;
    expect(problem.code).toEqual(ref('ProblemCode'));
    expect(components.ProblemCode!.enum).toEqual(ProblemCodeSchema.options);
    expect(components.ProblemCode!['x-enum-descriptions']).toHaveLength(ProblemCodeSchema.options.length);
    expect(components.ProblemCode!.description).toContain('`INVALID_PASSWORD` (400)');
  });

  it('leave the contract schemas as they were', () => {
    buildOpenApiDocument();
    expect((MemberResponseSchema as { metaOpenApi?: unknown }).metaOpenApi).toBeUndefined();
  });
});

describe('ComponentCollector', () => {
  const Color = z.enum(['RED', 'BLUE']);
  const Paint = z.object({ color: Color, shade: Color.nullable().describe('Optional second color') });
  const named = { Color, Paint };
  const collect = (schema: JsonSchema, mode: 'input' | 'output' = 'output') =>
    withSchemaMarkers(named, () => {
      const collector = new ComponentCollector(named);
      return { result: collector.refs(schema, mode), components: collector.components };
    });
  const json = (schema: z.ZodTypeAny) => withSchemaMarkers(named, () => generateSchema(schema, true) as JsonSchema);

  it('references named schemas and keeps what the use adds', () => {
    const { result, components: found } = collect(json(z.object({ paint: Paint })));
    expect(result.properties).toEqual({ paint: ref('Paint') });
    expect(found.Paint!.properties).toEqual({
      color: ref('Color'),
      shade: {
        description: 'Optional second color',
        anyOf: [ref('Color'), { type: 'string', nullable: true, enum: [null] }],
      },
    });
  });

  it('refuses a use that changes the schema itself', () => {
    const changed = { 'x-nestegg-schema-name': 'Color', type: 'string', enum: ['RED'] };
    expect(() => collect(changed)).toThrow(/Color is changed where it is used \(enum\)/);
  });
});
