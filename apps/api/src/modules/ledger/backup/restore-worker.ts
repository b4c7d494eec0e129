/**
 * The restore worker (a `worker_threads` thread): decodes, parses and validates a backup with the contract's
 * schemas and plans its rows, so the seconds this takes on a large backup never block the api's event loop.
 * It answers as it goes: the head first, then each batch of entries as soon as it is checked (the database
 * writes one batch while the next is checked), then `done`; or `refused` at the first problem.
 */
import { parentPort } from 'node:worker_threads';
import { BACKUP_ENTRIES_MAX, BackupEntrySchema, BackupObjectSchema, strictInput } from '@nestegg/contract';
import { z } from 'zod';
import { fieldIssues } from '../../../lib/field-issues.js';
import { lowerThreadPriority } from '../../../lib/worker-script.js';
import {
  type BackupEntry,
  ENTRY_BATCH_SIZE,
  type EntriesPlanned,
  type HeadPlan,
  MAX_ISSUES,
  type PlanIssue,
  planHead,
} from './restore-plan.js';

/** What the main thread sends. */
export interface RestoreRequest {
  id: number;
  body: Uint8Array;
  today: string;
}

export type RefusalCode = 'MALFORMED_JSON' | 'VALIDATION_FAILED' | 'EMPTY_BACKUP' | 'INVALID_BACKUP';

/** What the worker answers, in this order: head, entries…, done; or refused at any point. */
export type RestoreMessage =
  | { id: number; type: 'head'; head: HeadPlan }
  | { id: number; type: 'entries'; batch: string }
  | { id: number; type: 'done'; planned: EntriesPlanned }
  | { id: number; type: 'refused'; code: RefusalCode; issues: PlanIssue[] };

/**
 * The contract's backup schema, closed as the restore body is (C46), with the entries' items left to the batches
 * (checked with the item schema, closed too).
 */
const HeadSchema = strictInput(BackupObjectSchema).extend({
  entries: z.array(z.unknown()).max(BACKUP_ENTRIES_MAX).default([]),
});
const EntrySchema = strictInput(BackupEntrySchema);

/** Each field once, with its first message, as the api's other 400s (C47). */
const issuesOf = (issues: readonly z.ZodIssue[], prefix: (string | number)[] = []): PlanIssue[] =>
  fieldIssues(['body', ...prefix].join('.'), issues).slice(0, MAX_ISSUES);

function parseJson(body: Uint8Array): { ok: true; value: unknown } | { ok: false } {
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  try {
    return { ok: true, value: JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) };
  } catch {
    return { ok: false };
  }
}

/** One batch of raw entries through the contract's item schema; issues carry their index in the backup. */
function checkedEntries(raw: readonly unknown[], offset: number): { ok: true; entries: BackupEntry[] } | PlanIssue[] {
  const entries: BackupEntry[] = [];
  const issues: PlanIssue[] = [];
  raw.forEach((item, at) => {
    const parsed = EntrySchema.safeParse(item);
    if (parsed.success) entries.push(parsed.data);
    else if (issues.length < MAX_ISSUES) issues.push(...issuesOf(parsed.error.issues, ['entries', offset + at]));
  });
  return issues.length > 0 ? issues.slice(0, MAX_ISSUES) : { ok: true, entries };
}

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type Answer = WithoutId<RestoreMessage>;

const refused = (code: RefusalCode, issues: PlanIssue[] = []): Answer => ({ type: 'refused', code, issues });

/** Works through one backup body: the answers in order, ending with `done` or `refused`. */
export function* restoreAnswers({ body, today }: Omit<RestoreRequest, 'id'>): Generator<Answer> {
  const json = body.byteLength === 0 ? ({ ok: false } as const) : parseJson(body);
  if (!json.ok) return yield refused('MALFORMED_JSON');
  const parsed = HeadSchema.safeParse(json.value);
  if (!parsed.success) return yield refused('VALIDATION_FAILED', issuesOf(parsed.error.issues));
  const { entries: rawEntries, ...backup } = parsed.data;
  const planned = planHead(backup, rawEntries.length, today);
  if (!planned.ok) return yield refused(planned.code, planned.issues);
  yield { type: 'head', head: planned.head };
  for (let offset = 0; offset < rawEntries.length; offset += ENTRY_BATCH_SIZE) {
    const checked = checkedEntries(rawEntries.slice(offset, offset + ENTRY_BATCH_SIZE), offset);
    if (Array.isArray(checked)) return yield refused('VALIDATION_FAILED', checked);
    const batch = planned.entries.add(checked.entries, offset);
    if (!batch.ok) return yield refused(batch.code, batch.issues);
    yield { type: 'entries', batch: batch.batch };
  }
  const finished = planned.entries.finish((name) => backup.accounts.findIndex((a) => a.name === name));
  yield finished.ok ? { type: 'done', planned: finished.planned } : refused(finished.code, finished.issues);
}

lowerThreadPriority();

parentPort?.on('message', (request: RestoreRequest) => {
  for (const answer of restoreAnswers(request)) parentPort!.postMessage({ ...answer, id: request.id });
});
