import type { RowTargets } from './types.js';

/** What the verification issue holds every list endpoint to. */
export const LIST_TARGETS: RowTargets = { minThroughputRatio: 0.5, maxStatements: 3, maxP50Growth: 1.3 };

/** Single reads are held to the list endpoints' throughput and statement targets (no size to grow with). */
export const READ_TARGETS: RowTargets = { minThroughputRatio: 0.5, maxStatements: 3 };

/** The login is bounded by argon2id; it reports against raw verifications instead of a target. */
export const NO_TARGETS: RowTargets = {};
