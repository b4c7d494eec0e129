/** Ledger entries, card-notification parsing and pending entries, quick-entry templates. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  CurrencySchema,
  CursorSchema,
  DateSchema,
  decimalString,
  IdempotencyHeadersSchema,
  IdParamSchema,
  IdSchema,
  InstantSchema,
  LedgerTypeSchema,
  listOf,
  meta,
  NonNegativeMoneySchema,
  PageQuerySchema,
  PositiveMoneySchema,
  paginated,
  problems,
  QueryBooleanSchema,
  RateSchema,
  routerOptions,
  SortOrderSchema,
  uniqueArray,
  withCommonProblems,
} from '../common.js';
import type { NamedSchemas } from '../schema-names.js';
import { nonBlankText, text } from '../text.js';
import {
  CategoryRefSchema,
  DateRangeQuerySchema,
  ENTRY_TAGS_MAX,
  MemoSchema,
  OptionalIdQuerySchema,
  TagNameSchema,
  TEMPLATE_NAME_MAX,
} from './shared.js';

const c = initContract();

// ---------------------------------------------------------------------------
// Entries
// ---------------------------------------------------------------------------

export const INSTALLMENT_MIN = 2;
export const INSTALLMENT_MAX = 24;
export const InstallmentMonthsSchema = z.number().int().min(INSTALLMENT_MIN).max(INSTALLMENT_MAX);

/** Amount in the foreign currency: numeric(18,4). */
export const OriginalAmountSchema = decimalString(14, 4);

/** Writable fields of an entry (create uses them as is, update as a partial). */
export const EntryFieldsSchema = z.object({
  type: LedgerTypeSchema,
  amount: PositiveMoneySchema.describe('Local-currency amount (the converted value for a foreign entry)'),
  date: DateSchema,
  memo: MemoSchema.nullable().optional().describe('Merchant or description'),
  category: CategoryRefSchema.nullable()
    .optional()
    .describe(
      "Name of one of the caller's categories of the entry's type, at either level (else 400 `UNKNOWN_CATEGORY`); null = uncategorised",
    ),
  accountId: IdSchema.nullable().optional().describe("One of the caller's wallets (else 404)"),
  tags: uniqueArray(z.array(TagNameSchema).max(ENTRY_TAGS_MAX), 'tags must be unique')
    .optional()
    .describe(
      "Names of the caller's tags (premium: a FREE member sending any gets 403); an unknown name is 400 `UNKNOWN_TAG`. On update the entry's tags become exactly these",
    ),
  currency: CurrencySchema.nullable().optional().describe('Foreign currency; requires originalAmount and exchangeRate'),
  originalAmount: OriginalAmountSchema.nullable().optional(),
  exchangeRate: RateSchema.nullable().optional().describe('Local units per one foreign unit'),
  installmentMonths: InstallmentMonthsSchema.nullable()
    .optional()
    .describe('2..24 for an instalment expense on a CARD wallet; null for lump sum'),
});

type EntryFieldsInput = Partial<z.infer<typeof EntryFieldsSchema>>;
/**
 * A foreign-currency entry carries currency, originalAmount and exchangeRate together.
 * On create a missing currency forbids the other two; on update only a sent currency is checked
 * (`null` turns the entry back into a local one).
 */
const checkEntryFields =
  (mode: 'create' | 'update') =>
  (v: EntryFieldsInput, ctx: z.RefinementCtx): void => {
    const issue = (path: string, message: string) =>
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: [path], message });
    if (v.currency != null) {
      if (v.originalAmount == null) issue('originalAmount', 'required with currency');
      if (v.exchangeRate == null) issue('exchangeRate', 'required with currency');
    } else if (mode === 'create' || v.currency === null) {
      if (v.originalAmount != null) issue('originalAmount', 'only with currency');
      if (v.exchangeRate != null) issue('exchangeRate', 'only with currency');
    }
    if (v.installmentMonths != null && v.type === 'INCOME') issue('installmentMonths', 'only for expenses');
  };

export const CreateEntryRequestSchema = EntryFieldsSchema.superRefine(checkEntryFields('create'));
export type CreateEntryRequest = z.infer<typeof CreateEntryRequestSchema>;
/** Omitted fields stay as they are; `null` clears a nullable field. */
export const UpdateEntryRequestSchema = EntryFieldsSchema.partial().superRefine(checkEntryFields('update'));
export type UpdateEntryRequest = z.infer<typeof UpdateEntryRequestSchema>;

export const EntrySchema = z.object({
  id: IdSchema,
  type: LedgerTypeSchema,
  amount: PositiveMoneySchema,
  date: DateSchema,
  memo: text().nullable(),
  category: text().nullable(),
  accountId: IdSchema.nullable(),
  tags: z.array(text()),
  currency: CurrencySchema.nullable(),
  originalAmount: OriginalAmountSchema.nullable(),
  exchangeRate: RateSchema.nullable(),
  installmentMonths: InstallmentMonthsSchema.nullable(),
  pending: z.boolean().describe('true for an unconfirmed entry created from a card notification'),
  notifKey: text().nullable(),
  recurringId: IdSchema.nullable().describe('The recurring transaction that posted this entry'),
  createdAt: InstantSchema,
  updatedAt: InstantSchema,
});
export type Entry = z.infer<typeof EntrySchema>;

export const EntryListQuerySchema = PageQuerySchema.merge(DateRangeQuerySchema).extend({
  cursor: CursorSchema.optional().describe('Next page after a previous `nextCursor` (instead of `page`)'),
  type: LedgerTypeSchema.optional(),
  category: nonBlankText()
    .max(30)
    .optional()
    .describe('Category name; a top-level category includes its sub-categories'),
  accountId: OptionalIdQuerySchema,
  tag: nonBlankText().max(30).optional(),
  q: nonBlankText().max(100).optional().describe('Case-insensitive search in the memo'),
  pending: QueryBooleanSchema.optional(),
});
export type EntryListQuery = z.infer<typeof EntryListQuerySchema>;

const TOTAL_ON_FIRST_PAGE = "null on a page read with `cursor` (keep the first page's value)";
export const EntryPageSchema = paginated(EntrySchema).extend({
  page: z.number().int().min(1).describe('The requested `page` (1 on a page read with `cursor`)'),
  total: z
    .number()
    .int()
    .min(0)
    .nullable()
    .describe(`Entries matching the filter, pending ones included (all pages); ${TOTAL_ON_FIRST_PAGE}`),
  nextCursor: CursorSchema.nullable().describe('Pass as `cursor` for the next page; null on the last page'),
  incomeTotal: NonNegativeMoneySchema.nullable().describe(
    `Sum of confirmed INCOME amounts matching the filter (all pages); ${TOTAL_ON_FIRST_PAGE}`,
  ),
  expenseTotal: NonNegativeMoneySchema.nullable().describe(
    `Sum of confirmed EXPENSE amounts matching the filter (all pages); ${TOTAL_ON_FIRST_PAGE}`,
  ),
});
export type EntryPage = z.infer<typeof EntryPageSchema>;

// ---------------------------------------------------------------------------
// Card notifications
// ---------------------------------------------------------------------------

export const NOTIFICATION_TEXT_MAX = 2000;
export const NotificationKindSchema = z.enum(['APPROVAL', 'CANCELLATION']);
export type NotificationKind = z.infer<typeof NotificationKindSchema>;

export const ParseRequestSchema = z.object({
  text: nonBlankText()
    .max(NOTIFICATION_TEXT_MAX)
    .describe('SMS text, or a push as its title, a line break and its body'),
  receivedAt: InstantSchema.optional().describe(
    'When the device received it (default: now); a text without a year takes the year that puts it nearest before this',
  ),
});
export type ParseRequest = z.infer<typeof ParseRequestSchema>;

export const ParsedNotificationSchema = z.object({
  ignored: z.literal(false),
  kind: NotificationKindSchema,
  cardCompany: text()
    .nullable()
    .describe(
      'Canonical issuer (KB국민, 신한, 삼성, 현대, 롯데, 하나, 우리, BC, NH농협, 씨티, IBK, 카카오뱅크, 토스, …); null when unknown',
    ),
  cardLast4: text()
    .regex(/^\d{4}$/)
    .nullable()
    .describe('Last four card digits, only when the text shows them unmasked'),
  amount: PositiveMoneySchema.nullable().describe('Whole local units; null for a foreign-currency amount'),
  currency: CurrencySchema.describe('ISO 4217 code of the amount written in the text'),
  originalAmount: OriginalAmountSchema.nullable().describe('The foreign amount as written; null for local currency'),
  merchant: text().nullable(),
  installmentMonths: InstallmentMonthsSchema.nullable().describe('null for a lump sum'),
  occurredAt: InstantSchema.nullable().describe('Approval time; null when the text shows none'),
  cumulativeAmount: NonNegativeMoneySchema.nullable().describe('The running total (누적) the text shows'),
});
export type ParsedNotification = z.infer<typeof ParsedNotificationSchema>;
export const IgnoredNotificationSchema = z.object({
  ignored: z.literal(true).describe('Not a card approval or cancellation (e.g. an advertisement)'),
});
export type IgnoredNotification = z.infer<typeof IgnoredNotificationSchema>;
export const ParseResultSchema = z.union([ParsedNotificationSchema, IgnoredNotificationSchema]);
export type ParseResult = z.infer<typeof ParseResultSchema>;

export const NotificationRequestSchema = ParseRequestSchema.extend({
  accountId: IdSchema.optional().describe(
    "Wallet chosen on the device (else 404 when not one of the caller's): kept when it is a card wallet the text does not contradict, otherwise replaced by the matched card",
  ),
});
export type NotificationRequest = z.infer<typeof NotificationRequestSchema>;

export const NotificationCreatedSchema = z.object({ created: z.literal(true), entry: EntrySchema });
export type NotificationCreated = z.infer<typeof NotificationCreatedSchema>;
export const NotificationSkipReasonSchema = z
  .enum(['IGNORED', 'UNREADABLE', 'DUPLICATE', 'CANCELLED', 'APPROVAL_NOT_FOUND'])
  .describe(
    'IGNORED: no card approval or cancellation; UNREADABLE: no amount could be read; DUPLICATE: this approval or cancellation was already recorded; CANCELLED: a cancellation removed its approval; APPROVAL_NOT_FOUND: a cancellation matched no recorded approval',
  );
export type NotificationSkipReason = z.infer<typeof NotificationSkipReasonSchema>;
export const NotificationSkippedSchema = z.object({
  created: z.literal(false),
  reason: NotificationSkipReasonSchema,
  entryId: IdSchema.nullable().describe(
    'DUPLICATE: the entry the approval already created (null for a cancellation); CANCELLED: the approval entry removed; otherwise null',
  ),
});
export type NotificationSkipped = z.infer<typeof NotificationSkippedSchema>;

export const PendingCountSchema = z.object({ count: z.number().int().min(0) });
export type PendingCount = z.infer<typeof PendingCountSchema>;

// ---------------------------------------------------------------------------
// Quick entries
// ---------------------------------------------------------------------------

export const QuickEntryFieldsSchema = z.object({
  name: nonBlankText().max(TEMPLATE_NAME_MAX),
  type: LedgerTypeSchema.default('EXPENSE'),
  amount: NonNegativeMoneySchema.nullable().optional(),
  category: CategoryRefSchema.nullable()
    .optional()
    .describe("Name of one of the caller's categories of the template's type (else 400 `UNKNOWN_CATEGORY`)"),
  accountId: IdSchema.nullable().optional().describe("One of the caller's wallets (else 404)"),
  memo: MemoSchema.nullable().optional(),
  sortOrder: SortOrderSchema.optional().describe('Omit on create to place it last'),
});
export const CreateQuickEntryRequestSchema = QuickEntryFieldsSchema;
export type CreateQuickEntryRequest = z.infer<typeof CreateQuickEntryRequestSchema>;
export const UpdateQuickEntryRequestSchema = QuickEntryFieldsSchema.extend({ type: LedgerTypeSchema }).partial();
export type UpdateQuickEntryRequest = z.infer<typeof UpdateQuickEntryRequestSchema>;
export const QuickEntrySchema = z.object({
  id: IdSchema,
  name: text(),
  type: LedgerTypeSchema,
  amount: NonNegativeMoneySchema.nullable(),
  category: text().nullable(),
  accountId: IdSchema.nullable(),
  memo: text().nullable(),
  sortOrder: SortOrderSchema,
});
export type QuickEntry = z.infer<typeof QuickEntrySchema>;
export const QuickEntryListSchema = listOf(QuickEntrySchema);
export type QuickEntryList = z.infer<typeof QuickEntryListSchema>;

// ---------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------

export const entriesContract = withCommonProblems(
  c.router(
    {
      list: {
        method: 'GET',
        path: '/api/account/entries',
        summary: 'Entries matching the filters, newest date first',
        description:
          "Newest date first, then newest id. Pages by `cursor` (keyset on date and id: flat cost at any depth; send the previous page's `nextCursor`, `page` is then ignored) or by `page` (offset, at most 10,000 rows deep: deeper is 400 `OFFSET_TOO_DEEP`). Every page carries `nextCursor`. `total` (every match, pending included), `incomeTotal` and `expenseTotal` (confirmed entries only) cover the whole filter; they are computed on pages read without `cursor` and are null on pages read with it (keep the first page's values). An `accountId` that is not one of the caller's wallets is 404.",
        query: EntryListQuerySchema,
        responses: { 200: EntryPageSchema, ...problems('CURSOR_INVALID', 'OFFSET_TOO_DEEP', 'NOT_FOUND') },
        metadata: meta('login'),
      },
      create: {
        method: 'POST',
        path: '/api/account/entries',
        summary: 'Record an entry',
        description:
          'Send an `Idempotency-Key` so that a retry over a flaky network answers the first result instead of recording the entry twice. ' +
          "An entry that would take the caller's amounts (entries, wallet opening balances, values and loan amounts, budgets) past 9007199254740991 in sum is 400 `AMOUNT_OUT_OF_RANGE`, as is any write of those amounts on the other routes: every balance, total and statistic then stays a JSON number that reads exactly.",
        headers: IdempotencyHeadersSchema,
        body: CreateEntryRequestSchema,
        responses: {
          201: EntrySchema,
          ...problems('PREMIUM_REQUIRED', 'UNKNOWN_CATEGORY', 'UNKNOWN_TAG', 'NOT_FOUND', 'AMOUNT_OUT_OF_RANGE'),
        },
        metadata: meta('login'),
      },
      get: {
        method: 'GET',
        path: '/api/account/entries/:id',
        summary: 'One entry',
        pathParams: IdParamSchema,
        responses: { 200: EntrySchema },
        metadata: meta('login'),
      },
      update: {
        method: 'PUT',
        path: '/api/account/entries/:id',
        summary: 'Change an entry (omitted fields are kept)',
        pathParams: IdParamSchema,
        body: UpdateEntryRequestSchema,
        responses: {
          200: EntrySchema,
          ...problems('PREMIUM_REQUIRED', 'UNKNOWN_CATEGORY', 'UNKNOWN_TAG', 'AMOUNT_OUT_OF_RANGE'),
        },
        metadata: meta('login'),
      },
      delete: {
        method: 'DELETE',
        path: '/api/account/entries/:id',
        summary: 'Delete an entry',
        pathParams: IdParamSchema,
        responses: { 204: c.noBody() },
        metadata: meta('login'),
      },
      parse: {
        method: 'POST',
        path: '/api/account/entries/parse',
        summary: 'Parse a card message or push text; nothing is saved',
        description:
          'Reads a card-company SMS or app push: `{ignored: true}` for texts that report no card approval or cancellation (advertising, balance notices, one-time codes), else the fields read from it. A value the text does not show, or that cannot be read, is null.',
        body: ParseRequestSchema,
        responses: { 200: ParseResultSchema },
        metadata: meta('login'),
      },
      notification: {
        method: 'POST',
        path: '/api/account/entries/notification',
        summary: 'Create a pending expense from a card notification (duplicates create nothing)',
        description:
          "An approval creates a pending EXPENSE dated on the approval day (APP_TIMEZONE), on the caller's card wallet of the text's issuer (and last four digits when both are known; a single card wallet is chosen when nothing contradicts it), memo = merchant, category learned from the caller's confirmed entries. The same approval sent again, by SMS or by push, is recognised by its content (issuer, card digits, amount, approval minute, merchant) and creates nothing (200 `DUPLICATE`). A foreign amount is converted at that day's rate (503 when the exchange-rate provider cannot answer; never 1:1). A cancellation removes the approval it cancels (same card, amount and merchant, approved within the 90 days before): 200 `CANCELLED`.",
        body: NotificationRequestSchema,
        responses: {
          200: NotificationSkippedSchema,
          201: NotificationCreatedSchema,
          ...problems(
            'NOT_FOUND',
            'CURRENCY_NOT_FOUND',
            'AMOUNT_OUT_OF_RANGE',
            'PROVIDER_NOT_CONFIGURED',
            'PROVIDER_UNAVAILABLE',
          ),
        },
        metadata: meta('premium'),
      },
      confirm: {
        method: 'POST',
        path: '/api/account/entries/:id/confirm',
        summary: 'Confirm a pending entry (idempotent)',
        description:
          'The entry then counts in wallet balances, budgets and statistics, and teaches its memo and category to later notifications. Confirming a confirmed entry answers it unchanged.',
        pathParams: IdParamSchema,
        body: c.noBody(),
        responses: { 200: EntrySchema },
        metadata: meta('premium'),
      },
      pendingCount: {
        method: 'GET',
        path: '/api/account/entries/pending/count',
        summary: 'Number of pending entries',
        responses: { 200: PendingCountSchema },
        metadata: meta('premium'),
      },
    },
    routerOptions,
  ),
);

export const quickEntriesContract = withCommonProblems(
  c.router(
    {
      list: {
        method: 'GET',
        path: '/api/account/quick-entries',
        summary: 'Quick-entry templates by sortOrder, then id',
        responses: { 200: QuickEntryListSchema },
        metadata: meta('login'),
      },
      create: {
        method: 'POST',
        path: '/api/account/quick-entries',
        summary: 'Create a template',
        body: CreateQuickEntryRequestSchema,
        responses: { 201: QuickEntrySchema, ...problems('UNKNOWN_CATEGORY', 'NOT_FOUND') },
        metadata: meta('login'),
      },
      update: {
        method: 'PUT',
        path: '/api/account/quick-entries/:id',
        summary: 'Change a template (omitted fields are kept)',
        pathParams: IdParamSchema,
        body: UpdateQuickEntryRequestSchema,
        responses: { 200: QuickEntrySchema, ...problems('UNKNOWN_CATEGORY') },
        metadata: meta('login'),
      },
      delete: {
        method: 'DELETE',
        path: '/api/account/quick-entries/:id',
        summary: 'Delete a template',
        pathParams: IdParamSchema,
        responses: { 204: c.noBody() },
        metadata: meta('login'),
      },
    },
    routerOptions,
  ),
);

/** Component names of entries and quick entries (see schema-names.ts). */
export const entriesNamedSchemas: NamedSchemas = {
  Entry: EntrySchema,
  EntryPage: EntryPageSchema,
  NotificationParseResult: ParseResultSchema,
  ParsedNotification: ParsedNotificationSchema,
  IgnoredNotification: IgnoredNotificationSchema,
  NotificationCreated: NotificationCreatedSchema,
  NotificationSkipped: NotificationSkippedSchema,
  PendingCount: PendingCountSchema,
  QuickEntry: QuickEntrySchema,
  QuickEntryList: QuickEntryListSchema,
  NotificationKind: NotificationKindSchema,
  NotificationSkipReason: NotificationSkipReasonSchema,
};
