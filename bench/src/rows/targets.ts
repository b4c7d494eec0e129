import type { RowTargets } from './types.js';

/** What every list endpoint is held to (0.5× by the verification issue, raised to 0.7× by issue 22). */
export const LIST_TARGETS: RowTargets = { minThroughputRatio: 0.7, maxStatements: 3, maxP50Growth: 1.3 };

/** Single reads are held to the list endpoints' throughput and statement targets (no size to grow with). */
export const READ_TARGETS: RowTargets = { minThroughputRatio: 0.7, maxStatements: 3 };

/**
 * The login is bounded by argon2id. Its baseline verifies under the api's bound on hashes at once (FS1), so it
 * is held to the same 0.7x; 5 statements (a lookup and the session's transaction); the report also sets it
 * against raw verifications.
 */
export const LOGIN_TARGETS: RowTargets = { minThroughputRatio: 0.7, maxStatements: 5 };

/** Rows that only report (the backup area's jobs and /healthz beside them: see its rows). */
export const NO_TARGETS: RowTargets = {};

/** Statement import (issue 38, decision P33): a 10,000-row preview or commit in at most 2 s at p50. */
export const IMPORT_TARGETS: RowTargets = { maxP50Ms: 2_000 };

/**
 * A read while other work runs (issue 38: a profile read during a 50,000-row import): its rate at least 0.7× the
 * same read's with nothing else running, which that row's baseline columns hold (decision P33).
 */
export const QUIET_RATE_TARGETS: RowTargets = { minThroughputRatio: 0.7 };
