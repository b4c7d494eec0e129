/**
 * How an answer is held against its recorded example (decision C44): the same shape and the same values, except
 * values the api makes up on each call (instants, session tokens, cursors, random keys), which only need the
 * same form.
 */

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Properties whose values are made up per call: a session token, opaque cursors, keys with random parts, a member's UUID. */
const GENERATED_PROPERTIES = new Set(['token', 'cursor', 'nextCursor', 'key', 'messageId', 'appAccountToken']);

/** Random names inside a value: image and avatar keys in URLs. */
const GENERATED_PATTERNS: Array<[string, RegExp]> = [
  ['avatar URL', /\/api\/auth\/avatars\/[\w-]+$/],
  ['image URL', /\/api\/images\/[\w-]+$/],
  ['image data URL', /^data:image\//],
];

type Path = string;

const kindOf = (value: unknown): string => (Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value);

/** Whether `recorded` and `actual` are both values made up per call, of the same form. */
function bothGenerated(property: string | undefined, recorded: unknown, actual: unknown): boolean {
  if (typeof recorded !== 'string' || typeof actual !== 'string') return false;
  if (property !== undefined && GENERATED_PROPERTIES.has(property)) return true;
  if (INSTANT.test(recorded) && INSTANT.test(actual)) return true;
  return GENERATED_PATTERNS.some(([, pattern]) => pattern.test(recorded) && pattern.test(actual));
}

/** Where `actual` departs from `recorded`, as `path: what` lines (none when it matches). */
export function differences(recorded: unknown, actual: unknown, path: Path = '', property?: string): string[] {
  if (bothGenerated(property, recorded, actual)) return [];
  const kind = kindOf(recorded);
  if (kind !== kindOf(actual))
    return [`${path || '/'}: ${kind} ${JSON.stringify(recorded)}, got ${JSON.stringify(actual)}`];
  if (Array.isArray(recorded)) {
    const items = actual as unknown[];
    if (recorded.length !== items.length) return [`${path || '/'}: ${recorded.length} items, got ${items.length}`];
    return recorded.flatMap((item, index) => differences(item, items[index], `${path}/${index}`));
  }
  if (kind === 'object') {
    const want = recorded as Record<string, unknown>;
    const got = actual as Record<string, unknown>;
    const keys = new Set([...Object.keys(want), ...Object.keys(got)]);
    return [...keys].flatMap((key) => {
      if (!(key in got)) return [`${path}/${key}: missing`];
      if (!(key in want)) return [`${path}/${key}: not in the example (${JSON.stringify(got[key])})`];
      return differences(want[key], got[key], `${path}/${key}`, key);
    });
  }
  return Object.is(recorded, actual)
    ? []
    : [`${path || '/'}: ${JSON.stringify(recorded)}, got ${JSON.stringify(actual)}`];
}

/**
 * What to record for a new answer: `fresh`, but keeping the earlier recording's made-up values where the two
 * match, so that recording again changes only what the api now answers differently.
 */
export function stableRecording(earlier: unknown, fresh: unknown, property?: string): unknown {
  if (earlier === undefined) return fresh;
  if (bothGenerated(property, earlier, fresh)) return earlier;
  if (Array.isArray(earlier) && Array.isArray(fresh) && earlier.length === fresh.length) {
    return fresh.map((item, index) => stableRecording(earlier[index], item));
  }
  if (kindOf(earlier) === 'object' && kindOf(fresh) === 'object') {
    const before = earlier as Record<string, unknown>;
    return Object.fromEntries(
      Object.entries(fresh as Record<string, unknown>).map(([key, value]) => [
        key,
        stableRecording(before[key], value, key),
      ]),
    );
  }
  return fresh;
}
