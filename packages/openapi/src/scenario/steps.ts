/**
 * The example scenario's vocabulary (decision C44): the steps that make the document's examples, the references
 * between them, and how an answer is held against its recorded example. The steps themselves are in
 * `scenario.ts`; what the api answered to each, in `recorded.json`.
 */

/** Who sends a step, as the document says it (`x-example-caller`). */
export type ExampleCaller =
  | 'anyone'
  /** Minji, who signed up in the first steps: FREE until the test purchase. */
  | 'member'
  /** Minji after the test purchase. */
  | 'premium'
  /** A second member who signed up with a password, later linked to identity provider one. */
  | 'neighbor'
  /** A member who signed in with identity provider one, never with a password. */
  | 'social'
  /** An administrator (made with `npm run admin`). */
  | 'admin';

export const callerText: Record<ExampleCaller, string> = {
  anyone: 'anyone, without a session',
  member: 'a FREE member who has just signed up',
  premium: 'a PREMIUM member (the same member after a test purchase)',
  neighbor: 'another FREE member',
  social: 'a member who signs in with identity provider one',
  admin: 'an administrator',
};

/** A part of a path into an answer: a property, an index, or the first item whose properties match. */
export type PathPart = string | number | Record<string, unknown>;

const REF = 'example-ref' as const;

/** A value taken from an earlier step's answer (a created id, say), optionally reshaped. */
export interface Ref {
  readonly kind: typeof REF;
  readonly step: string;
  readonly path: readonly PathPart[];
  readonly reshape?: (value: unknown) => unknown;
}

export const ref = (step: string, ...path: PathPart[]): Ref => ({ kind: REF, step, path });

/** `ref` followed by a function of the value (the id at the end of a URL, say). */
export const refAs = (reshape: (value: unknown) => unknown, step: string, ...path: PathPart[]): Ref => ({
  kind: REF,
  step,
  path,
  reshape,
});

export const lastPathSegment = (value: unknown): string => String(value).split('/').pop() ?? '';

const isRef = (value: unknown): value is Ref =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === REF;

/** A file part of a multipart request: a small real image the runner makes, or the text given. */
export type ExampleFile = { file: 'png'; filename: string } | { text: string; filename: string; type: string };

export interface ExampleStep {
  /** Unique name other steps refer to; the operation id when left out. */
  label?: string;
  operation: string;
  as: ExampleCaller;
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
  multipart?: Record<string, ExampleFile | string>;
  status: number;
  /** Run for what later steps need, not shown in the document (the operation's example is another step). */
  setup?: true;
  /**
   * Values the document cannot carry, sent instead (`body.idToken`, `headers.authorization`): a provider's
   * signed token, made by the runner's fake provider for the named identity.
   */
  substitute?: Record<string, string>;
  /** The answer's `token` becomes this caller's session. */
  signsIn?: ExampleCaller;
}

export const labelOf = (step: ExampleStep): string => step.label ?? step.operation;

/** Recorded answers by step label. */
export type Recorded = Record<string, { status: number; body?: unknown }>;

/** Follows `path` into `value`; undefined when a part is missing. */
export function follow(value: unknown, path: readonly PathPart[]): unknown {
  let current = value;
  for (const part of path) {
    if (current === undefined || current === null) return undefined;
    if (typeof part === 'object') {
      if (!Array.isArray(current)) return undefined;
      current = current.find((item) => Object.entries(part).every(([key, wanted]) => item?.[key] === wanted));
    } else {
      current = (current as Record<string | number, unknown>)[part];
    }
  }
  return current;
}

export class MissingReference extends Error {}

/** `value` with every reference replaced by what `answers` holds for it. */
export function resolve(value: unknown, answers: Recorded): unknown {
  if (isRef(value)) {
    const answer = answers[value.step];
    const found = answer ? follow(answer.body, value.path) : undefined;
    if (found === undefined) {
      throw new MissingReference(`no ${[value.step, ...value.path.map((p) => JSON.stringify(p))].join(' → ')}`);
    }
    return value.reshape ? value.reshape(found) : found;
  }
  if (Array.isArray(value)) return value.map((item) => resolve(item, answers));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolve(item, answers)]));
  }
  return value;
}
