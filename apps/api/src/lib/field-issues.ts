import type { ZodIssue } from 'zod';
import type { FieldIssue } from './errors.js';

/**
 * A message or path safe to send back: zod's messages quote the value received (an enum's `received '…'`), so
 * control characters (a NUL above all, which the Problem schema itself refuses) are written as `\uXXXX` (C30).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this escapes
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;
export const quoteSafely = (message: string): string =>
  message.replace(CONTROL_CHARACTERS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** What a field the request's closed schema does not name is told (C46), by the part of the request it is in. */
const UNKNOWN_FIELD: Record<string, string> = {
  query: 'not a query parameter of this request',
  body: 'not a field of this request',
};

type Located = { path: ReadonlyArray<string | number>; message: string };

/** zod names the unknown keys of an object in one issue at the object: one issue per key, at the key. */
function located(issue: ZodIssue, part: string): Located[] {
  if (issue.code !== 'unrecognized_keys') return [issue];
  const message = UNKNOWN_FIELD[part.split('.')[0] ?? ''] ?? UNKNOWN_FIELD.body!;
  return issue.keys.map((key) => ({ path: [...issue.path, key], message }));
}

/**
 * The `errors` of a 400 for zod issues in one part of a request (`body`, `query`, `params`, or a place inside
 * the body such as `body.entries.7`): each field named once, with the first message zod gives for it (C47), so
 * that one bad value never reads as several problems (a date's shape and then its calendar, a blank name and then
 * its length). zod checks a field's own rules before the rules across fields, so the first message is its own.
 */
export function fieldIssues(part: string, issues: readonly ZodIssue[]): FieldIssue[] {
  const byPath = new Map<string, string>();
  for (const { path, message } of issues.flatMap((issue) => located(issue, part))) {
    const key = [part, ...path].join('.');
    if (!byPath.has(key)) byPath.set(key, message);
  }
  return [...byPath].map(([path, message]) => ({ path: quoteSafely(path), message: quoteSafely(message) }));
}
