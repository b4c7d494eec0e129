import SwaggerParser from '@apidevtools/swagger-parser';
import { declaredProblemCodes, routeAuth } from '@nestegg/contract';
import { describe, expect, it } from 'vitest';
// The contract's own route list, imported by path: one list for both packages' tests.
import { routes, signature } from '../../contract/test/routes.js';
import { buildOpenApiDocument, SECURITY_SCHEME } from '../src/index.js';
import { doc, operations, opFor, withoutExamples } from './document.js';

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

  it("serves errors as problem+json: the Problem schema, its code one of the route's codes for the status (C32)", () => {
    expect(doc.components?.schemas?.Problem).toBeDefined();
    for (const { route, method, openApiPath } of routes) {
      const op = opFor(method, openApiPath);
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        const codes = declaredProblemCodes(route, Number(status));
        expect(codes.length).toBeGreaterThan(0);
        expect(withoutExamples(response.content), `${method} ${openApiPath} ${status}`).toEqual({
          'application/problem+json': {
            schema: {
              allOf: [
                { $ref: '#/components/schemas/Problem' },
                { required: ['code'], properties: { code: { type: 'string', enum: codes } } },
              ],
            },
          },
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

  it('names its owner, its license and a relative server when no address is given', () => {
    expect(doc.info.contact?.name).toBeTruthy();
    expect(doc.info.license?.name).toBe('Proprietary');
    expect(buildOpenApiDocument().servers).toEqual([{ url: '/', description: expect.any(String) }]);
  });

  it('describes every operation, with its access level', () => {
    for (const r of routes) {
      const op = opFor(r.method, r.openApiPath);
      expect(op.description, r.key).toContain(r.route.description ?? r.route.summary);
      expect(op.description, r.key).toMatch(/Public|Needs a session/);
    }
  });

  it('declares exactly the statuses of the contract', () => {
    for (const r of routes) {
      expect(Object.keys(opFor(r.method, r.openApiPath).responses), r.key).toEqual(
        Object.keys(r.route.responses).sort(),
      );
    }
  });

  it('marks request bodies required, so generated clients require them', () => {
    expect(opFor('POST', '/api/auth/login').requestBody?.required).toBe(true);
    for (const { path, method, op } of operations) {
      if (op.requestBody) expect(op.requestBody.required, `${method} ${path}`).toBe(true);
    }
  });

  it('declares an integer Retry-After on every 429', () => {
    const limited = operations.filter(({ op }) => op.responses['429']);
    expect(limited.map(({ method, path }) => `${method} ${path}`)).toEqual(
      expect.arrayContaining(['POST /api/auth/login', 'POST /api/board/posts', 'POST /api/account/ocr/receipt']),
    );
    for (const { path, method, op } of limited) {
      expect(op.responses['429']!.headers?.['Retry-After'], `${method} ${path}`).toEqual({
        description: expect.any(String),
        required: true,
        schema: { type: 'integer', minimum: 1 },
      });
    }
  });
});

describe('instants', () => {
  it('are strings of format date-time for client generators', () => {
    const schemas = (doc.components?.schemas ?? {}) as Record<
      string,
      { properties: Record<string, { format?: string }> }
    >;
    const member = schemas.Member!;
    expect(member.properties.createdAt!.format).toBe('date-time');
  });
});
