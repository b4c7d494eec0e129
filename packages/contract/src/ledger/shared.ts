/** Field schemas shared by the ledger routes. */
import { z } from 'zod';
import { CoercedIdSchema, DateSchema, nameSchema } from '../common.js';
import { text } from '../text.js';

export const CATEGORY_REF_MAX = 30;
export const MEMO_MAX = 200;
export const TAG_NAME_MAX = 30;
export const ENTRY_TAGS_MAX = 20;
export const WALLET_NAME_MAX = 30;
export const TEMPLATE_NAME_MAX = 50;

/** A category referenced by name (entries, budgets, recurrings and quick entries store names). */
export const CategoryRefSchema = nameSchema(CATEGORY_REF_MAX);
export const MemoSchema = text().trim().max(MEMO_MAX);
export const TagNameSchema = nameSchema(TAG_NAME_MAX);

/** Optional date range filter for lists (inclusive). */
export const DateRangeQuerySchema = z.object({
  from: DateSchema.optional().describe('Inclusive start date'),
  to: DateSchema.optional().describe('Inclusive end date'),
});

/** Optional numeric id in a query string. */
export const OptionalIdQuerySchema = CoercedIdSchema.optional();
