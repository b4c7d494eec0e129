import { readFileSync } from 'node:fs';
import type { z } from 'zod';

/** Every bad or missing variable, one line each; the apps print it and exit before doing anything. */
export class InvalidEnvironmentError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid environment:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`);
    this.name = 'InvalidEnvironmentError';
  }
}

type Source = Record<string, string | undefined>;

/**
 * Container platforms mount secrets as files: `NAME_FILE=/run/secrets/name` stands for `NAME` with the
 * file's content (one trailing newline dropped), for every variable the schema declares. Setting both
 * `NAME` and `NAME_FILE` is an error, as is a file that cannot be read.
 */
export function resolveSecretFiles(source: Source, names: readonly string[]): { values: Source; issues: string[] } {
  const values: Source = { ...source };
  const issues: string[] = [];
  for (const name of names) {
    const file = source[`${name}_FILE`];
    if (file === undefined || file === '') continue;
    if (source[name] !== undefined && source[name] !== '') {
      issues.push(`${name}: set either ${name} or ${name}_FILE, not both`);
      continue;
    }
    try {
      values[name] = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      issues.push(`${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  return { values, issues };
}

/** Blank values count as unset, so `FOO=` in an env file means "use the default". */
function withoutBlanks(source: Source): Source {
  return Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value.trim() !== ''));
}

function formatIssue(issue: z.ZodIssue): string {
  return `${issue.path.join('.') || '(environment)'}: ${issue.message}`;
}

/**
 * Parses the environment once with the app's schema; throws one error naming every bad variable.
 * `schema` is an object schema (optionally refined); its keys decide which `NAME_FILE` variables are read.
 */
export function loadEnvironment<S extends z.ZodTypeAny>(
  schema: S,
  keys: readonly string[],
  source: Source = process.env,
): z.output<S> {
  const { values, issues } = resolveSecretFiles(source, keys);
  const parsed = schema.safeParse(withoutBlanks(values));
  const all = [...issues, ...(parsed.success ? [] : parsed.error.issues.map(formatIssue))];
  if (all.length > 0) throw new InvalidEnvironmentError(all);
  return parsed.data;
}

/** `loadEnvironment`, but prints the error and exits(1): the entry points of the apps use this. */
export function loadEnvironmentOrExit<S extends z.ZodTypeAny>(
  service: string,
  schema: S,
  keys: readonly string[],
  source: Source = process.env,
): z.output<S> {
  try {
    return loadEnvironment(schema, keys, source);
  } catch (error) {
    if (!(error instanceof InvalidEnvironmentError)) throw error;
    console.error(`${service}: ${error.message}`);
    process.exit(1);
  }
}
