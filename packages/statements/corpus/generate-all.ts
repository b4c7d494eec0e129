/**
 * Regenerates every shape's statement file and expected.json: `pnpm --filter @nestegg/statements corpus`.
 * Each shape's generate.ts is a script of ours; running them all twice gives byte-identical files.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('.', import.meta.url).pathname;
const shapes = readdirSync(root)
  .filter((name) => name !== 'lib' && statSync(join(root, name)).isDirectory())
  .sort();
for (const shape of shapes) {
  await import(join(root, shape, 'generate.ts'));
  console.log(`corpus: ${shape}`);
}
