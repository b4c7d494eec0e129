/**
 * docs/configuration.md against the apps' environment schemas (issue 36): the page is written by hand, and this
 * test keeps it true. Under "Variables the apps validate" it has one row per variable of the api's and the
 * worker's schema and no other, each row naming the apps that read it and the schema's default. The variables
 * it lists elsewhere (tracing, scripts, compose, tests) are read by the code. README.md and the other pages name
 * no variable this page leaves out.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envSchema as workerSchema } from '@nestegg/billing-worker/env';
import { ProblemCode } from '@nestegg/contract';
import { describe, expect, it } from 'vitest';
import { ZodEffects, ZodObject, type z } from 'zod';
import { envSchema as apiSchema } from './env.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFile(join(root, path), 'utf8');
const page = await read('docs/configuration.md');

/** The variables of an app's schema: its object under the refinements. */
function shapeOf(schema: z.ZodTypeAny): Record<string, z.ZodTypeAny> {
  let inner = schema;
  while (inner instanceof ZodEffects) inner = inner.innerType();
  if (!(inner instanceof ZodObject)) throw new Error('an env schema is an object under its refinements');
  return inner.shape;
}

const schemas = { api: shapeOf(apiSchema), worker: shapeOf(workerSchema) };
const apps = ['api', 'worker'] as const;
const schemaVariables = new Set(apps.flatMap((app) => Object.keys(schemas[app])));

/** The section whose tables are held to the schemas. */
const SCHEMA_SECTION = 'Variables the apps validate';
/** Defaults the schema computes from the machine: the page states the rule instead of a value. */
const MACHINE_DEPENDENT: Record<string, string> = { PASSWORD_HASH_CONCURRENCY: 'cores − 1' };
/** Read by the OpenTelemetry exporter itself (not by our code), checked in the exporter's files. */
const READ_BY_THE_EXPORTER = ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TIMEOUT'];
/** Upper-case names the pages use that are not variables: problem codes, and these. */
const NOT_VARIABLES = new Set([
  ...Object.keys(ProblemCode),
  'NAME_FILE', // the rule's placeholder
  'SOME_SETTING', // DEVELOPING.md's example of an override
  'GLOBAL_QUOTE', // Alpha Vantage's function
  'MAX_SAFE_INTEGER', // Number.MAX_SAFE_INTEGER
]);
/** The pages that name variables. */
const PAGES = [
  'README.md',
  'DEVELOPING.md',
  'docs/configuration.md',
  'docs/deployment.md',
  'docs/architecture.md',
  'docs/benchmarks.md',
];

interface Row {
  section: string;
  name: string;
  usedBy: string;
  fallback: string;
}

/** Every table row of the page whose first cell is a variable, with the `## ` section it is in. */
function rowsOf(markdown: string): Row[] {
  const rows: Row[] = [];
  let section = '';
  for (const line of markdown.split('\n')) {
    const heading = /^## (.+)$/.exec(line);
    if (heading) section = heading[1]!;
    if (!line.startsWith('| `')) continue;
    const cells = line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((cell) => cell.trim());
    const name = /^`([A-Z][A-Z0-9_]*)`$/.exec(cells[0]!)?.[1];
    if (!name) throw new Error(`a row names one variable in its first cell: ${line}`);
    rows.push({ section, name, usedBy: cells[1]!, fallback: cells[2]! });
  }
  return rows;
}

const rows = rowsOf(page);
const documented = new Set(rows.map((row) => row.name));

type Default = { kind: 'required' } | { kind: 'unset' } | { kind: 'value'; text: string };

/** What the schema gives when the variable is unset. */
function defaultOf(schema: z.ZodTypeAny): Default {
  const parsed = schema.safeParse(undefined);
  if (!parsed.success) return { kind: 'required' };
  const value: unknown = parsed.data;
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return { kind: 'unset' };
  return { kind: 'value', text: Array.isArray(value) ? value.join(',') : String(value) };
}

function expectDefault(row: Row): void {
  const readers = apps.filter((app) => row.name in schemas[app]);
  const [first, second] = readers.map((app) => defaultOf(schemas[app][row.name]!));
  const message = `${row.name}'s default cell: ${row.fallback}`;
  if (row.name in MACHINE_DEPENDENT) {
    expect(row.fallback, message).toContain(MACHINE_DEPENDENT[row.name]);
    return;
  }
  if (first?.kind === 'value' && second?.kind === 'value' && first.text !== second.text) {
    expect(row.fallback, message).toContain(`api \`${first.text}\``);
    expect(row.fallback, message).toContain(`worker \`${second.text}\``);
    return;
  }
  expect(second ?? first, `${row.name}: the same kind of default in both apps`).toEqual(first);
  if (first?.kind === 'required') expect(row.fallback, message).toMatch(/\brequired\b/);
  if (first?.kind === 'unset') expect(row.fallback, message).toMatch(/\b(unset|empty)\b/);
  if (first?.kind === 'value') expect(row.fallback, message).toContain(`\`${first.text}\``);
}

/** Text of the workspace's own code and configuration: what reads a variable that no schema declares. */
async function codeText(): Promise<string> {
  const texts: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(join(root, dir), { withFileTypes: true })) {
      if (['node_modules', 'dist', '.turbo'].includes(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (/\.(ts|mts|mjs|js|sh|ya?ml)$|^run$|^\.env\.example$/.test(entry.name)) texts.push(await read(path));
    }
  };
  for (const dir of ['apps', 'packages', 'infra', 'scripts', 'bench', '.ci']) await walk(dir);
  return texts.join('\n');
}

/** Text of the OpenTelemetry OTLP exporter's configuration code, as installed. */
async function exporterText(): Promise<string> {
  const requireFromHere = createRequire(import.meta.url);
  const entry = createRequire(requireFromHere.resolve('@opentelemetry/exporter-trace-otlp-proto')).resolve(
    '@opentelemetry/otlp-exporter-base',
  );
  const marker = `${sep}otlp-exporter-base${sep}`;
  const base = entry.slice(0, entry.lastIndexOf(marker) + marker.length);
  const texts: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const item of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, item.name);
      if (item.isDirectory()) await walk(path);
      else if (/\.(m?js|cjs)$/.test(item.name)) texts.push(await readFile(path, 'utf8'));
    }
  };
  await walk(join(base, 'dist'));
  return texts.join('\n');
}

describe('docs/configuration.md', () => {
  it('lists every variable of both schemas once, in its tables of validated variables, and no other', () => {
    const validated = rows.filter((row) => row.section === SCHEMA_SECTION).map((row) => row.name);
    expect(validated.length).toBeGreaterThan(80);
    expect(new Set(validated).size, 'a variable listed twice').toBe(validated.length);
    expect([...validated].sort()).toEqual([...schemaVariables].sort());
    const elsewhere = rows.filter((row) => row.section !== SCHEMA_SECTION && schemaVariables.has(row.name));
    expect(elsewhere.map((row) => row.name)).toEqual([]);
  });

  it('names, for each, the apps whose schema has it and the default the schema gives', () => {
    for (const row of rows.filter((candidate) => candidate.section === SCHEMA_SECTION)) {
      for (const app of apps) {
        const named = new RegExp(`\\b${app}\\b`).test(row.usedBy);
        expect(named, `${row.name}: "${row.usedBy}" names the ${app} iff its schema has it`).toBe(
          row.name in schemas[app],
        );
      }
      expectDefault(row);
    }
  });

  it('lists, outside those tables, only variables the code reads', async () => {
    const code = await codeText();
    const exporter = await exporterText();
    const others = rows.filter((row) => row.section !== SCHEMA_SECTION).map((row) => row.name);
    expect(others.length).toBeGreaterThan(20);
    for (const name of others) {
      const source = READ_BY_THE_EXPORTER.includes(name) ? exporter : code;
      expect(source.includes(name), `${name} is read somewhere`).toBe(true);
    }
  });

  it('shows DATABASE_URL as the schemas take it: one host, or several with their session attributes (FO33)', () => {
    const line = page.split('\n').find((candidate) => candidate.startsWith('| `DATABASE_URL` '));
    const examples = (line?.match(/`postgres(?:ql)?:\/\/[^`]+`/g) ?? []).map((example) => example.slice(1, -1));
    expect(examples.some((url) => url.includes(',') && url.includes('target_session_attrs=read-write'))).toBe(true);
    expect(examples.some((url) => !url.includes(','))).toBe(true);
    for (const app of apps) {
      for (const url of examples)
        expect(schemas[app].DATABASE_URL!.safeParse(url).success, `${app}: ${url}`).toBe(true);
      // What the row says stops the app: each value refused, naming nothing but the problem.
      for (const bad of [
        examples.find((url) => url.includes(','))!.replace('read-write', 'standby'),
        'postgres://nestegg:se@cret@db1,db2/nestegg',
        'postgres://nestegg@db1:5432,,db2/nestegg',
        'postgres://nestegg@db1:70000/nestegg',
      ]) {
        expect(schemas[app].DATABASE_URL!.safeParse(bad).success, `${app}: ${bad}`).toBe(false);
      }
    }
  });

  it('is the list infra/.env.example covers', async () => {
    const example = await read('infra/.env.example');
    // `NAME=` or `NAME_FILE=`, set or commented out.
    const missing = [...schemaVariables].filter((name) => !new RegExp(`^#? ?${name}(_FILE)?=`, 'm').test(example));
    expect(missing).toEqual([]);
  });
});

describe('the pages that name variables', () => {
  it.for(PAGES)('%s names only variables docs/configuration.md lists', async (path) => {
    const text = await read(path);
    const names = new Set(text.match(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g) ?? []);
    const unknown = [...names].filter(
      (name) => !documented.has(name) && !documented.has(name.replace(/_FILE$/, '')) && !NOT_VARIABLES.has(name),
    );
    expect(unknown).toEqual([]);
  });
});
