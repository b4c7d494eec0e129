/** Writes packages/openapi/openapi.json (gitignored). Run with `pnpm openapi`. */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '../src/index.js';

const target = fileURLToPath(new URL('../openapi.json', import.meta.url));
const serverUrl = process.env.OPENAPI_SERVER_URL;
const doc = buildOpenApiDocument(serverUrl ? { serverUrl } : {});
writeFileSync(target, `${JSON.stringify(doc, null, 2)}\n`);
const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item as object).length, 0);
console.log(`wrote ${target} (${Object.keys(doc.paths).length} paths, ${operations} operations)`);
