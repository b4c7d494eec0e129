/** What each problem code means, for client developers (the OpenAPI document shows it). */
import { type ProblemCode, problemCodeStatus } from './problem-codes.js';

export type ProblemCodeInfo = {
  /** The HTTP status the api sends the code with. */
  readonly status: number;
  /** What happened, for client developers. */
  readonly description: string;
};

const descriptions: { readonly [K in ProblemCode]: string } = {
  VALIDATION_FAILED: 'The request does not match the contract; `errors` lists each field',
  MALFORMED_JSON: 'The body is not valid JSON',
  BAD_REQUEST: 'The request cannot be read (e.g. bad percent-encoding); also any other 4xx without a code of its own',
  UNAUTHENTICATED: 'No valid session: log in (again)',
  FORBIDDEN: 'The caller may not do this',
  ADMIN_REQUIRED: 'The route is for administrators',
  PREMIUM_REQUIRED: 'The route needs the PREMIUM plan',
  NOT_FOUND: 'No such resource (or route)',
  METHOD_NOT_ALLOWED: 'The path exists, the method does not',
  CONFLICT: 'The request conflicts with the current state',
  PAYLOAD_TOO_LARGE: 'The body is larger than the route accepts',
  UNSUPPORTED_MEDIA_TYPE: 'The body has a Content-Type the route does not accept',
  RATE_LIMITED: 'Too many attempts: retry after `Retry-After` seconds',
  REQUEST_HEADERS_TOO_LARGE:
    'The request line or headers are over the size limit (answered before any route is chosen)',
  INTERNAL_ERROR: 'Unexpected server error (logged); retrying may help',
  SERVICE_UNAVAILABLE: 'A service the route needs is not available right now',
  OVERLOADED: 'The instance is shedding load: retry after `Retry-After` seconds',
  NOT_READY: 'Readiness check failed (`/readyz` only)',
  DATABASE_UNAVAILABLE:
    'The database cannot be reached or did not answer in time (a restart, a failover): retry after `Retry-After` seconds',
  EMAIL_TAKEN: 'An account with this e-mail exists: log in instead',
  SIGNUP_DISABLED: 'Sign-up is closed right now',
  ACCOUNT_SUSPENDED: 'The account is suspended',
  INVALID_PASSWORD: 'The password of the re-authentication gate is wrong',
  INVALID_CURRENT_PASSWORD: 'The current password of a password change is wrong',
  PASSWORD_UNCHANGED: 'The new password equals the current one',
  WEAK_PASSWORD: 'The new password is too easy to guess; `detail` has advice',
  REAUTHENTICATION_REQUIRED:
    'Re-authenticate first (verify-password, or reauthenticate for provider accounts), then retry',
  PROVIDER_MISMATCH: "The provider token belongs to another identity than the caller's linked account",
  PASSWORD_CHANGED_CONCURRENTLY: 'Another request changed the password first; this change was not applied',
  PASSWORD_ALREADY_SET:
    'The account has a password (set first by another request, or all along): change it with `PUT /api/auth/password`',
  SOCIAL_ACCOUNT:
    'The account has no password to check or change (a provider account, or a LOCAL account whose password login a provider sign-in turned off: `POST /api/auth/password` sets one)',
  INVALID_IMAGE: 'The image (profile picture, receipt, board image) is not a complete PNG, JPEG, GIF or WebP image',
  IMAGE_TOO_LARGE:
    'The image (profile picture, receipt, board image) has more bytes, pixels or frames than the api accepts',
  INVALID_ID_TOKEN: 'The identity provider token was rejected',
  PROVIDER_NOT_CONFIGURED: 'The provider this route needs (identity, exchange rates, …) is not set up',
  PROVIDER_UNAVAILABLE: 'The provider this route needs cannot be reached; retry later',
  EMAIL_NOT_VERIFIED: "The provider's e-mail is unverified and belongs to an account",
  ACCOUNT_LINKED_ELSEWHERE: 'The account is linked to another identity of this provider',
  CANNOT_MODIFY_SELF: 'Administrators cannot change or delete their own account here',
  LAST_ADMIN: 'At least one active administrator must remain',
  CATEGORY_TOO_DEEP: 'A sub-category can only sit under a top-level category',
  CATEGORY_TYPE_MISMATCH: 'A sub-category must have the type of its parent',
  CATEGORY_HAS_CHILDREN: 'The category has sub-categories: move or delete them first',
  DUPLICATE_CATEGORY_NAME: 'A category of this type already has this name (at either level)',
  INVALID_PARENT: 'A category cannot sit under itself',
  INVALID_REORDER: 'The ids are not exactly all the siblings of one group',
  WALLET_LIMIT: 'A FREE member holds the most wallets of this type already',
  RECURRING_LIMIT: 'A FREE member holds the most recurring transactions already (2)',
  DUPLICATE_NAME: 'Another item of the caller already has this name',
  CURSOR_INVALID: 'The cursor is not one this list gave, or it expired',
  OFFSET_TOO_DEEP: 'Pages this deep are read with `cursor`, not `page`',
  UNKNOWN_CATEGORY: 'The caller has no category of this type with this name: create it first',
  UNKNOWN_TAG: 'No tag of the caller has this name: create it first',
  CATEGORY_IN_USE:
    'Entries, recurrings, quick entries or budgets use the category (or a sub-category): its type cannot change',
  CURRENCY_NOT_FOUND: 'The exchange-rate provider has no rate for this currency',
  RESYNC_REQUIRED: 'The changes since this cursor are no longer kept: sync from scratch',
  DUPLICATE_BUDGET: 'The category already has a budget in this month: change that one',
  STATEMENT_UNSUPPORTED:
    'The file is not a statement the api reads (CSV/TSV, XLSX, OFX/QFX or an HTML-table .xls); a legacy binary .xls must be saved as .xlsx or CSV',
  STATEMENT_UNREADABLE:
    'The statement cannot be read: an unknown encoding, an empty or header-only file, no header row, or an XLSX that would expand past its limit',
  STATEMENT_TOO_MANY_ROWS: 'The statement has more rows than one import takes (50,000): split it by period',
  IMPORT_COMMITTED:
    'The import is committed or undone: it can no longer be adjusted, committed again after an undo, or discarded',
  IMPORT_NOT_COMMITTED: 'Only a committed import can be undone (this one is a preview, or already undone)',
  IMPORT_UNDO_EXPIRED: 'The import is past its undo window: change its entries one by one',
  IMPORT_QUOTA_EXCEEDED: "The member used today's statement uploads: retry after `Retry-After` seconds",
  AMOUNT_OUT_OF_RANGE:
    "The write would take the caller's amounts (entries, wallet balances and values, budgets) past 9007199254740991 in sum, what a JSON number holds exactly: nothing was saved",
  HOLDING_QUANTITY_NEGATIVE: 'Replaying the trades in time order would sell more than is held at some point',
  RECEIPT_QUOTA_EXCEEDED: "The member used today's receipt recognitions: retry after `Retry-After` seconds",
  OWN_CONTENT: 'Members cannot vote on or report their own posts and comments',
  ALREADY_REPORTED: 'The caller already reported this post or comment (a dismissal does not reopen it)',
  IMAGE_QUOTA_EXCEEDED:
    'The member uploaded as many board images (or bytes) as 24 hours allow: retry after `Retry-After` seconds',
  EMPTY_BACKUP: 'The backup holds no data to restore',
  INVALID_BACKUP:
    'The backup contradicts itself: it names a wallet, tag or parent category it does not hold, holds a name twice, or a record breaks a ledger rule',
  UNKNOWN_BOARD_TAG: "A post's tag is not in the tag groups shown on its board",
  DUPLICATE_SPAM_KEYWORD: 'The spam keyword list already holds this keyword (compared normalised)',
  UNKNOWN_PRODUCT: 'The product is not one of the subscription products (`GET /api/billing/products`)',
  INVALID_PURCHASE: 'The store does not know this purchase token (or it belongs to another app)',
  PRODUCT_MISMATCH: 'The store says the purchase is for another product than the one sent',
  PURCHASE_OWNED_ELSEWHERE: 'The purchase was already applied to another account',
  NO_SUBSCRIPTION: 'There is no subscription that grants PREMIUM to change',
  NO_PURCHASE: 'The member has no store purchase to restore from',
  INVALID_PUSH_TOKEN: "The push carries no valid token of the store's push service",
  APP_ACCOUNT_TOKEN_MISMATCH:
    "The App Store transaction does not carry the member's appAccountToken (`GET /api/billing/appstore/account-token`): the app must pass it at purchase",
  SANDBOX_NOT_ALLOWED:
    'The purchase was made in the App Store sandbox, and sandbox purchases grant nothing on this server',
  INVALID_NOTIFICATION_SIGNATURE:
    "The App Store notification's signature (or the transaction or renewal info signed inside it) does not verify to Apple's root",
  STORE_NOT_CONFIGURED: 'Store purchases are not configured on this server',
  STORE_UNAVAILABLE: 'The app store cannot be reached right now: retry later',
  IDEMPOTENCY_KEY_REUSED: 'This Idempotency-Key was used with another request body',
  IDEMPOTENCY_KEY_IN_USE: 'A request with this Idempotency-Key is still running: retry after `Retry-After` seconds',
  IDEMPOTENCY_OUTCOME_UNKNOWN:
    'The request with this Idempotency-Key was carried out but its answer was lost: it is not run again; read the current state instead of resending',
};

function withDescriptions(): { readonly [K in ProblemCode]: ProblemCodeInfo } {
  const entries = Object.entries(problemCodeStatus).map(([code, status]) => [
    code,
    { status, description: descriptions[code as ProblemCode] },
  ]);
  return Object.fromEntries(entries) as { readonly [K in ProblemCode]: ProblemCodeInfo };
}

/** Every problem code with its status and meaning (pure: dropped from bundles that do not use it). */
export const problemCodeInfo = /* @__PURE__ */ withDescriptions();
