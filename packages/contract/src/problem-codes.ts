/**
 * Every `code` a problem response can carry (D4), with the HTTP status it is sent with. Clients branch on
 * the code, never on the prose. To add a code: add a line to the group of its area here, and its meaning to
 * `problem-code-descriptions.ts` (kept apart so that client bundles do not carry the prose).
 */
import { z } from 'zod';

/** Sent by the framework, the guards and the error handler on any route. */
const generalCodes = {
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  ADMIN_REQUIRED: 403,
  PREMIUM_REQUIRED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  REQUEST_HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  OVERLOADED: 503,
  NOT_READY: 503,
  DATABASE_UNAVAILABLE: 503,
} as const;

/** Member area: sign-up, login, provider sign-in, password, profile. */
const authCodes = {
  EMAIL_TAKEN: 409,
  SIGNUP_DISABLED: 403,
  ACCOUNT_SUSPENDED: 403,
  INVALID_PASSWORD: 400,
  INVALID_CURRENT_PASSWORD: 400,
  PASSWORD_UNCHANGED: 400,
  WEAK_PASSWORD: 400,
  REAUTHENTICATION_REQUIRED: 403,
  PROVIDER_MISMATCH: 403,
  PASSWORD_CHANGED_CONCURRENTLY: 409,
  PASSWORD_ALREADY_SET: 409,
  SOCIAL_ACCOUNT: 400,
  INVALID_IMAGE: 400,
  IMAGE_TOO_LARGE: 400,
  INVALID_ID_TOKEN: 401,
  PROVIDER_NOT_CONFIGURED: 503,
  PROVIDER_UNAVAILABLE: 503,
  EMAIL_NOT_VERIFIED: 403,
  ACCOUNT_LINKED_ELSEWHERE: 403,
} as const;

/** Admin area (and withdrawal, for LAST_ADMIN) and categories (default and member categories share the rules). */
const adminCodes = {
  CANNOT_MODIFY_SELF: 403,
  LAST_ADMIN: 409,
  CATEGORY_TOO_DEEP: 400,
  CATEGORY_TYPE_MISMATCH: 400,
  CATEGORY_HAS_CHILDREN: 409,
  DUPLICATE_CATEGORY_NAME: 409,
  INVALID_PARENT: 400,
  INVALID_REORDER: 400,
} as const;

/** Ledger area: entries, wallets, categories, tags, recurrings, exchange rates, sync. */
const ledgerCodes = {
  WALLET_LIMIT: 400,
  RECURRING_LIMIT: 400,
  DUPLICATE_NAME: 409,
  CURSOR_INVALID: 400,
  OFFSET_TOO_DEEP: 400,
  UNKNOWN_CATEGORY: 400,
  UNKNOWN_TAG: 400,
  CATEGORY_IN_USE: 409,
  CURRENCY_NOT_FOUND: 404,
  RESYNC_REQUIRED: 409,
  DUPLICATE_BUDGET: 409,
  HOLDING_QUANTITY_NEGATIVE: 409,
  RECEIPT_QUOTA_EXCEEDED: 429,
  OWN_CONTENT: 400,
  ALREADY_REPORTED: 409,
  IMAGE_QUOTA_EXCEEDED: 429,
  EMPTY_BACKUP: 400,
  INVALID_BACKUP: 400,
  UNKNOWN_BOARD_TAG: 400,
  DUPLICATE_SPAM_KEYWORD: 409,
  AMOUNT_OUT_OF_RANGE: 400,
  STATEMENT_UNSUPPORTED: 400,
  STATEMENT_UNREADABLE: 400,
  STATEMENT_TOO_MANY_ROWS: 400,
  IMPORT_COMMITTED: 409,
  IMPORT_NOT_COMMITTED: 409,
  IMPORT_UNDO_EXPIRED: 409,
  IMPORT_QUOTA_EXCEEDED: 429,
} as const;

/** Membership area: store purchases, subscription changes, store notifications. */
const billingCodes = {
  UNKNOWN_PRODUCT: 400,
  INVALID_PURCHASE: 400,
  PRODUCT_MISMATCH: 400,
  PURCHASE_OWNED_ELSEWHERE: 409,
  NO_SUBSCRIPTION: 409,
  NO_PURCHASE: 404,
  INVALID_PUSH_TOKEN: 401,
  APP_ACCOUNT_TOKEN_MISMATCH: 400,
  SANDBOX_NOT_ALLOWED: 403,
  INVALID_NOTIFICATION_SIGNATURE: 401,
  STORE_NOT_CONFIGURED: 503,
  STORE_UNAVAILABLE: 503,
} as const;

/** Creating requests with an `Idempotency-Key`. */
const idempotencyCodes = {
  IDEMPOTENCY_KEY_REUSED: 422,
  IDEMPOTENCY_KEY_IN_USE: 409,
  IDEMPOTENCY_OUTCOME_UNKNOWN: 409,
} as const;

/** The HTTP status each problem code is sent with. */
export const problemCodeStatus = {
  ...generalCodes,
  ...authCodes,
  ...adminCodes,
  ...ledgerCodes,
  ...billingCodes,
  ...idempotencyCodes,
};
type ProblemCodeName = keyof typeof problemCodeStatus;

/** The closed set of problem codes (`z.enum`): `ProblemSchema.code` is this enum. */
export const ProblemCodeSchema = z
  .enum(Object.keys(problemCodeStatus) as [ProblemCodeName, ...ProblemCodeName[]])
  .describe('Stable UPPER_SNAKE identifier clients branch on');

/**
 * A problem code. As a type it is the union of the codes (a `switch` over it can be exhaustive);
 * as a value it maps each code to itself: `ProblemCode.NOT_FOUND`.
 */
export type ProblemCode = z.infer<typeof ProblemCodeSchema>;
export const ProblemCode: { readonly [K in ProblemCode]: K } = ProblemCodeSchema.enum;
