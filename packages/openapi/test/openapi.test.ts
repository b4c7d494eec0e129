import SwaggerParser from '@apidevtools/swagger-parser';
import { routeAuth } from '@nestegg/contract';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, SECURITY_SCHEME } from '../src/index.js';
import { routes, signature } from './routes.js';

const doc = buildOpenApiDocument({ serverUrl: 'https://api.example.test' });
type Op = {
  operationId?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  responses: Record<string, { content?: Record<string, unknown> }>;
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, { format?: string }> } }> };
};
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item as Record<string, Op>).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
);
const opFor = (method: string, path: string): Op => {
  const found = operations.find((o) => o.method === method && o.path === path);
  if (!found) throw new Error(`no operation ${method} ${path}`);
  return found.op;
};

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.0 document', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
    expect(doc.openapi).toMatch(/^3\.0\./);
    expect(doc.info.title).toBe('Nestegg API');
    expect(doc.servers).toEqual([{ url: 'https://api.example.test' }]);
  });

  it('lists exactly the routes of the contract', () => {
    const fromContract = routes.map((r) => signature(r.method, r.openApiPath)).sort();
    const fromDocument = operations.map((o) => signature(o.method, o.path)).sort();
    expect(fromDocument).toEqual(fromContract);
    expect(new Set(fromContract).size).toBe(fromContract.length);
  });

  it('gives every operation a unique operationId and one area tag', () => {
    const ids = operations.map((o) => o.op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const areas = new Set((doc.tags ?? []).map((t) => t.name));
    for (const { op } of operations) {
      expect(op.tags).toHaveLength(1);
      expect(areas.has(op.tags![0]!)).toBe(true);
    }
    expect(opFor('GET', '/api/account/entries').operationId).toBe('ledgerEntriesList');
  });

  it('requires the bearer scheme on every non-public route', () => {
    expect(doc.components?.securitySchemes?.[SECURITY_SCHEME]).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const r of routes) {
      const op = opFor(r.method, r.openApiPath);
      const auth = routeAuth(r.route);
      if (auth === 'public') expect(op.security, r.key).toEqual([]);
      else expect(op.security, r.key).toContainEqual({ [SECURITY_SCHEME]: [] });
      if (auth === 'optional') expect(op.security, r.key).toContainEqual({});
    }
  });

  it('serves errors as problem+json referencing the Problem schema', () => {
    expect(doc.components?.schemas?.Problem).toBeDefined();
    for (const { path, method, op } of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        expect(response.content, `${method} ${path} ${status}`).toEqual({
          'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
        });
      }
    }
  });

  it('describes binary bodies', () => {
    expect(Object.keys(opFor('GET', '/api/images/{id}').responses['200']!.content!)).toEqual(['image/*']);
    for (const path of ['/api/board/images', '/api/account/ocr/receipt']) {
      const media = opFor('POST', path).requestBody!.content['multipart/form-data']!;
      expect(media.schema.properties!.file!.format, path).toBe('binary');
    }
  });
});
