/**
 * Every `code` a problem response can carry (D4). Clients branch on the code, never on the prose.
 * To add a code: add a line to the group of its area (status + what it means); the zod enum, the
 * `ProblemCode` type and the OpenAPI document follow.
 */
import { z } from 'zod';

export type ProblemCodeInfo = {
  /** The HTTP status the api sends the code with. */
  readonly status: number;
  /** What happened, for client developers (shown in the OpenAPI document). */
  readonly description: string;
};

/** Sent by the framework, the guards and the error handler on any route. */
const generalCodes = {
  VALIDATION_FAILED: { status: 400, description: 'The request does not match the contract; `errors` lists each field' },
  MALFORMED_JSON: { status: 400, description: 'The body is not valid JSON' },
  BAD_REQUEST: {
    status: 400,
    description: 'The request cannot be read (e.g. bad percent-encoding); also any other 4xx without a code of its own',
  },
  UNAUTHENTICATED: { status: 401, description: 'No valid session: log in (again)' },
  FORBIDDEN: { status: 403, description: 'The caller may not do this' },
  ADMIN_REQUIRED: { status: 403, description: 'The route is for administrators' },
  PREMIUM_REQUIRED: { status: 403, description: 'The route needs the PREMIUM plan' },
  NOT_FOUND: { status: 404, description: 'No such resource (or route)' },
  METHOD_NOT_ALLOWED: { status: 405, description: 'The path exists, the method does not' },
  CONFLICT: { status: 409, description: 'The request conflicts with the current state' },
  PAYLOAD_TOO_LARGE: { status: 413, description: 'The body is larger than the route accepts' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'The body has a Content-Type the route does not accept' },
  RATE_LIMITED: { status: 429, description: 'Too many attempts: retry after `Retry-After` seconds' },
  REQUEST_HEADERS_TOO_LARGE: {
    status: 431,
    description: 'The request line or headers are over the size limit (answered before any route is chosen)',
  },
  INTERNAL_ERROR: { status: 500, description: 'Unexpected server error (logged); retrying may help' },
  SERVICE_UNAVAILABLE: { status: 503, description: 'A service the route needs is not available right now' },
  OVERLOADED: { status: 503, description: 'The instance is shedding load: retry after `Retry-After` seconds' },
  NOT_READY: { status: 503, description: 'Readiness check failed (`/readyz` only)' },
} satisfies Record<string, ProblemCodeInfo>;

/** Member area: sign-up, login, provider sign-in, password, profile. */
const authCodes = {
  EMAIL_TAKEN: { status: 409, description: 'An account with this e-mail exists: log in instead' },
  SIGNUP_DISABLED: { status: 403, description: 'Sign-up is closed right now' },
  ACCOUNT_SUSPENDED: { status: 403, description: 'The account is suspended' },
  INVALID_PASSWORD: { status: 400, description: 'The password of the re-authentication gate is wrong' },
  INVALID_CURRENT_PASSWORD: { status: 400, description: 'The current password of a password change is wrong' },
  PASSWORD_UNCHANGED: { status: 400, description: 'The new password equals the current one' },
  WEAK_PASSWORD: { status: 400, description: 'The new password is too easy to guess; `detail` has advice' },
  REAUTHENTICATION_REQUIRED: {
    status: 403,
    description: 'Re-authenticate first (verify-password, or reauthenticate for provider accounts), then retry',
  },
  PROVIDER_MISMATCH: {
    status: 403,
    description: "The provider token belongs to another identity than the caller's linked account",
  },
  PASSWORD_CHANGED_CONCURRENTLY: {
    status: 409,
    description: 'Another request changed the password first; this change was not applied',
  },
  SOCIAL_ACCOUNT: { status: 400, description: 'A provider account has no password to check or change' },
  INVALID_IMAGE: { status: 400, description: 'The profile picture is not a PNG, JPEG, GIF or WebP data URL' },
  IMAGE_TOO_LARGE: { status: 400, description: 'The profile picture is larger than the api accepts' },
  INVALID_ID_TOKEN: { status: 401, description: 'The identity provider token was rejected' },
  PROVIDER_NOT_CONFIGURED: { status: 503, description: 'Sign-in with this identity provider is not set up' },
  PROVIDER_UNAVAILABLE: { status: 503, description: 'The identity provider cannot be reached; retry later' },
  EMAIL_NOT_VERIFIED: { status: 403, description: "The provider's e-mail is unverified and belongs to an account" },
  ACCOUNT_LINKED_ELSEWHERE: { status: 403, description: 'The account is linked to another identity of this provider' },
} satisfies Record<string, ProblemCodeInfo>;

/** Admin area (and withdrawal, for LAST_ADMIN) and categories (default and member categories share the rules). */
const adminCodes = {
  CANNOT_MODIFY_SELF: { status: 403, description: 'Administrators cannot change or delete their own account here' },
  LAST_ADMIN: { status: 409, description: 'At least one active administrator must remain' },
  CATEGORY_TOO_DEEP: { status: 400, description: 'A sub-category can only sit under a top-level category' },
  CATEGORY_TYPE_MISMATCH: { status: 400, description: 'A sub-category must have the type of its parent' },
  CATEGORY_HAS_CHILDREN: { status: 409, description: 'The category has sub-categories: move or delete them first' },
  DUPLICATE_CATEGORY_NAME: { status: 409, description: 'A sibling category already has this name' },
  INVALID_PARENT: { status: 400, description: 'A category cannot sit under itself' },
  INVALID_REORDER: { status: 400, description: 'The ids are not exactly all the siblings of one group' },
} satisfies Record<string, ProblemCodeInfo>;

const allCodes = { ...generalCodes, ...authCodes, ...adminCodes };
type ProblemCodeName = keyof typeof allCodes;

/** Every problem code with its status and meaning. */
export const problemCodeInfo: { readonly [K in ProblemCodeName]: ProblemCodeInfo } = allCodes;

/** The closed set of problem codes (`z.enum`): `ProblemSchema.code` is this enum. */
export const ProblemCodeSchema = z
  .enum(Object.keys(allCodes) as [ProblemCodeName, ...ProblemCodeName[]])
  .describe('Stable UPPER_SNAKE identifier clients branch on');

/**
 * A problem code. As a type it is the union of the codes (a `switch` over it can be exhaustive);
 * as a value it maps each code to itself: `ProblemCode.NOT_FOUND`.
 */
export type ProblemCode = z.infer<typeof ProblemCodeSchema>;
export const ProblemCode: { readonly [K in ProblemCode]: K } = ProblemCodeSchema.enum;
