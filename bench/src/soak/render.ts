/**
 * Renders a soak's page again from the raw result it kept (`pnpm --filter @nestegg/bench soak:render <json>
 * [--out docs/soak.md]`), so a change to the page's layout needs no new 35-minute run.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { renderReport, type SoakResult, writePage } from './report.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { out: { type: 'string', default: new URL('../../../docs/soak.md', import.meta.url).pathname } },
});
const from = positionals[0];
if (!from) throw new Error('usage: soak:render <raw result .json> [--out docs/soak.md]');
const result = JSON.parse(await readFile(from, 'utf8')) as SoakResult;
await writePage(values.out!, renderReport(result));
console.info(`written to ${values.out}`);
