import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { buildOpenApiDocument } from '@nestegg/openapi';
import fp from 'fastify-plugin';

export interface OpenApiPluginOptions {
  publicUrl: string;
}

/** Serves the contract's OpenAPI document at /api/openapi.json and an interactive page at /api/docs. */
export default fp<OpenApiPluginOptions>(
  async (app, options) => {
    const document = buildOpenApiDocument({ serverUrl: options.publicUrl });
    await app.register(swagger, { mode: 'static', specification: { document: document as never } });
    // The docs page gets the script and style hashes it needs (the api's own CSP allows nothing);
    // without forcing https, so a plain-http local run still loads it.
    // The page is titled after the service; operations start folded under their domain tags (C38), with a filter.
    await app.register(swaggerUi, {
      routePrefix: '/api/docs',
      theme: { title: document.info.title },
      uiConfig: { docExpansion: 'none', filter: true, deepLinking: true, displayOperationId: true },
      staticCSP: true,
      transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
    });
    app.get('/api/openapi.json', async () => document);
  },
  { name: 'openapi' },
);
