/** Member area: sign-up, sessions, provider sign-in, profile, password, points, withdrawal. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { IdParamSchema, IdSchema, InstantSchema, meta, problems, routerOptions, withCommonProblems } from './common.js';
import { MemberResponseSchema, MemberStatusSchema, ProviderSchema, RoleSchema } from './member.js';
import type { NamedSchemas } from './schema-names.js';
import { nonBlankText, text } from './text.js';

export * from './member.js';

const c = initContract();

/** What a sign-in with either identity provider can answer besides its session. */
const providerSignInProblems = problems(
  'RATE_LIMITED',
  'INVALID_ID_TOKEN',
  'UNAUTHENTICATED',
  'ACCOUNT_SUSPENDED',
  'EMAIL_NOT_VERIFIED',
  'ACCOUNT_LINKED_ELSEWHERE',
  'PROVIDER_NOT_CONFIGURED',
  'PROVIDER_UNAVAILABLE',
);

// ---------------------------------------------------------------------------
// Fields
// ---------------------------------------------------------------------------

/**
 * The e-mail syntax the server applies (zod's `email()` on the trimmed, lower-cased value), as a pattern on the
 * value as sent (white space around it allowed, either case), so the document says what `format: email` alone
 * would not (decision C29).
 */
export const EMAIL_PATTERN =
  /^\s*(?!\.)(?!.*\.\.)[A-Za-z0-9_'+\-.]*[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}\s*$/;
export const EmailSchema = text()
  .regex(EMAIL_PATTERN, 'expected an e-mail address such as name@example.com')
  .trim()
  .toLowerCase()
  .email()
  .max(254);
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
export const PasswordSchema = text().min(PASSWORD_MIN).max(PASSWORD_MAX);
/** A password being checked (login, gate): no policy hints, only a sane bound. */
export const PasswordInputSchema = text().min(1).max(PASSWORD_MAX);
export const DISPLAY_NAME_MAX = 30;
export const DisplayNameSchema = nonBlankText().max(DISPLAY_NAME_MAX);

/** A data URL of a PNG/JPEG/GIF/WebP image, at most 700,000 characters (≈512 KB). */
export const PROFILE_IMAGE_MAX_CHARS = 700_000;
export const ProfileImageDataUrlSchema = z
  .string()
  .max(PROFILE_IMAGE_MAX_CHARS)
  .regex(
    /^(data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2})?$/,
    'expected an image data URL or an empty string',
  );

// ---------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------

/** Where a member whose password login a provider sign-in turned off sets a new password (M30). */
export const SET_PASSWORD_PATH = '/api/auth/password';

export const SessionResponseSchema = z.object({
  token: text().describe('Send as `Authorization: Bearer <token>`'),
  expiresAt: InstantSchema,
  member: MemberResponseSchema,
  // Both optional and sent only in the one case below, so clients built before them read the same answer.
  passwordLoginDisabled: z
    .literal(true)
    .optional()
    .describe(
      'Provider sign-ins only, and only when this sign-in linked into a LOCAL account whose e-mail had never been ' +
        'proven: its password was removed and its other sessions ended (M22). Absent otherwise.',
    ),
  passwordLoginHint: text()
    .optional()
    .describe(
      'Sent with `passwordLoginDisabled`: how to log in with a password again (`POST /api/auth/password` with a ' +
        'fresh token of this provider and a new password).',
    ),
});
export type SessionResponse = z.infer<typeof SessionResponseSchema>;

export const SignupRequestSchema = z.object({
  email: EmailSchema,
  password: PasswordSchema,
  displayName: DisplayNameSchema,
  /** Honeypot: humans leave it empty; anything else is treated as a bot. */
  website: text().max(2000).optional().describe('Honeypot: leave empty'),
});
export type SignupRequest = z.infer<typeof SignupRequestSchema>;
export const SignupResponseSchema = z.object({ email: text(), displayName: text() });
export type SignupResponse = z.infer<typeof SignupResponseSchema>;

export const LoginRequestSchema = z.object({
  email: EmailSchema,
  password: PasswordInputSchema,
  rememberMe: z.boolean().optional().describe('true: the session lasts 30 days'),
});
export type LoginRequest = z.infer<typeof LoginRequestSchema>;

export const IdpOneLoginRequestSchema = z.object({ idToken: text().min(1).max(8192) });
export type IdpOneLoginRequest = z.infer<typeof IdpOneLoginRequestSchema>;
export const IdpTwoLoginRequestSchema = z.object({
  identityToken: text().min(1).max(8192),
  /** Provider two only sends the name on the first sign-in; the app forwards it. */
  displayName: DisplayNameSchema.optional(),
});
export type IdpTwoLoginRequest = z.infer<typeof IdpTwoLoginRequestSchema>;
export const IdpOneClientIdResponseSchema = z.object({
  clientId: text().nullable().describe('null when provider one sign-in is not configured'),
});
export type IdpOneClientIdResponse = z.infer<typeof IdpOneClientIdResponseSchema>;

export const ChangePasswordRequestSchema = z.object({
  currentPassword: PasswordInputSchema,
  newPassword: PasswordSchema,
});
export type ChangePasswordRequest = z.infer<typeof ChangePasswordRequestSchema>;

export const VerifyPasswordRequestSchema = z.object({ password: PasswordInputSchema });
export type VerifyPasswordRequest = z.infer<typeof VerifyPasswordRequestSchema>;
/** How long a passed gate counts as a fresh re-authentication for sensitive operations (withdrawal). */
export const REAUTHENTICATION_WINDOW_MINUTES = 5;

export const VerifyPasswordResponseSchema = z.object({
  verified: z.literal(true),
  reauthenticatedUntil: InstantSchema.describe(
    'Sensitive operations (withdrawal) are allowed in this session until then',
  ),
});
export type VerifyPasswordResponse = z.infer<typeof VerifyPasswordResponseSchema>;

/** Re-authentication of a provider account: a fresh ID token of the provider the account is linked to. */
export const ReauthenticateRequestSchema = z.object({
  provider: z.enum(['IDPONE', 'IDPTWO']),
  token: text().min(1).max(8192).describe('An ID token issued within the last 5 minutes'),
});
export type ReauthenticateRequest = z.infer<typeof ReauthenticateRequestSchema>;

/**
 * Setting a password on a LOCAL account that has none (a provider sign-in turned it off, M22): a fresh ID token
 * of the provider linked to the account proves it is the owner (M30).
 */
export const SetPasswordRequestSchema = z.object({
  provider: z.enum(['IDPONE', 'IDPTWO']),
  token: text()
    .min(1)
    .max(8192)
    .describe(
      'An ID token of the identity linked to this account, issued (and signed in, `auth_time`) within 5 minutes',
    ),
  newPassword: PasswordSchema,
});
export type SetPasswordRequest = z.infer<typeof SetPasswordRequestSchema>;

/** One of the caller's sessions ("where am I signed in"). */
export const MemberSessionSchema = z.object({
  id: IdSchema,
  current: z.boolean().describe('The session this request was made with'),
  userAgent: text().nullable().describe('User-Agent of the client at login'),
  createdAt: InstantSchema,
  lastSeenAt: InstantSchema.describe('Updated at most once per tenth of the session lifetime'),
  expiresAt: InstantSchema,
});
export type MemberSession = z.infer<typeof MemberSessionSchema>;
export const MemberSessionListSchema = z.object({ items: z.array(MemberSessionSchema) });
export type MemberSessionList = z.infer<typeof MemberSessionListSchema>;
export const EndedSessionsSchema = z.object({ ended: z.number().int().min(0) });
export type EndedSessions = z.infer<typeof EndedSessionsSchema>;

export const UpdateProfileRequestSchema = z.object({ displayName: DisplayNameSchema });
export type UpdateProfileRequest = z.infer<typeof UpdateProfileRequestSchema>;

export const ProfileImageRequestSchema = z.object({
  dataUrl: ProfileImageDataUrlSchema.describe('Image data URL; an empty string clears the picture'),
});
export type ProfileImageRequest = z.infer<typeof ProfileImageRequestSchema>;

export const PointsResponseSchema = z.object({ points: z.number().int().min(0) });
export type PointsResponse = z.infer<typeof PointsResponseSchema>;

export const POINT_HISTORY_MAX = 100;
export const PointHistoryItemSchema = z.object({
  id: IdSchema,
  amount: z.number().int().describe('Signed change of the balance'),
  reason: text(),
  createdAt: InstantSchema,
});
export type PointHistoryItem = z.infer<typeof PointHistoryItemSchema>;
export const PointHistoryResponseSchema = z.object({
  items: z.array(PointHistoryItemSchema).max(POINT_HISTORY_MAX).describe('Newest first, at most 100'),
});
export type PointHistoryResponse = z.infer<typeof PointHistoryResponseSchema>;

export const SignupEnabledResponseSchema = z.object({ enabled: z.boolean() });

/** `{memberId}-{md5 of the picture}`: built by the api (authors' `avatarUrl`), never by clients. */
export const AvatarKeyParamSchema = z.object({
  key: text().regex(/^[1-9]\d{0,9}-[0-9a-f]{32}$/, 'not an avatar key'),
});
export type AvatarKeyParam = z.infer<typeof AvatarKeyParamSchema>;
export type SignupEnabledResponse = z.infer<typeof SignupEnabledResponseSchema>;

// ---------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------

export const authContract = withCommonProblems(
  c.router(
    {
      signup: {
        method: 'POST',
        path: '/api/auth/signup',
        summary: 'Create a LOCAL account (no session: log in next)',
        body: SignupRequestSchema,
        responses: {
          201: SignupResponseSchema,
          ...problems('RATE_LIMITED', 'SIGNUP_DISABLED', 'WEAK_PASSWORD', 'EMAIL_TAKEN'),
        },
        metadata: meta('public'),
      },
      login: {
        method: 'POST',
        path: '/api/auth/login',
        summary: 'Log in with e-mail and password',
        body: LoginRequestSchema,
        responses: { 200: SessionResponseSchema, ...problems('RATE_LIMITED', 'UNAUTHENTICATED', 'ACCOUNT_SUSPENDED') },
        metadata: meta('public'),
      },
      logout: {
        method: 'POST',
        path: '/api/auth/logout',
        summary: 'End the current session (no-op without a valid token)',
        body: c.noBody(),
        responses: { 204: c.noBody() },
        metadata: meta('optional'),
      },
      idpOneLogin: {
        method: 'POST',
        path: '/api/auth/idpone',
        summary: 'Sign in with an identity provider one ID token',
        body: IdpOneLoginRequestSchema,
        responses: {
          200: SessionResponseSchema,
          ...providerSignInProblems,
        },
        metadata: meta('public'),
      },
      idpTwoLogin: {
        method: 'POST',
        path: '/api/auth/idptwo',
        summary: 'Sign in with an identity provider two identity token',
        body: IdpTwoLoginRequestSchema,
        responses: {
          200: SessionResponseSchema,
          ...providerSignInProblems,
        },
        metadata: meta('public'),
      },
      idpOneClientId: {
        method: 'GET',
        path: '/api/auth/idpone-client-id',
        summary: 'Configured client id of identity provider one',
        responses: { 200: IdpOneClientIdResponseSchema },
        metadata: meta('public'),
      },
      changePassword: {
        method: 'PUT',
        path: '/api/auth/password',
        summary: 'Change the password of a LOCAL account',
        body: ChangePasswordRequestSchema,
        responses: {
          204: c.noBody(),
          ...problems(
            'RATE_LIMITED',
            'INVALID_CURRENT_PASSWORD',
            'PASSWORD_UNCHANGED',
            'WEAK_PASSWORD',
            'SOCIAL_ACCOUNT',
            'PASSWORD_CHANGED_CONCURRENTLY',
          ),
        },
        metadata: meta('login'),
      },
      setPassword: {
        method: 'POST',
        path: SET_PASSWORD_PATH,
        summary: 'Set a password on a LOCAL account that has none, proven by a fresh provider token',
        description:
          'For a LOCAL account whose password login a provider sign-in turned off (the provider sign-in answer said ' +
          '`passwordLoginDisabled`): a token of the provider identity linked to this account, issued within 5 minutes ' +
          '(and, when it has `auth_time`, signed in within 5 minutes), and the new password (checked like sign-up). ' +
          'Other sessions stay. Problems: 400 `WEAK_PASSWORD`, `SOCIAL_ACCOUNT` (a provider account: no password); ' +
          '401 `INVALID_ID_TOKEN`; 403 `REAUTHENTICATION_REQUIRED` (the token is not fresh), `PROVIDER_MISMATCH` ' +
          '(another identity, or a provider not linked to this account); 409 `PASSWORD_ALREADY_SET` (the account has ' +
          'a password, set all along or by a concurrent request: change it with `PUT /api/auth/password`); 429 ' +
          '`RATE_LIMITED` (rejected provider tokens, as in provider sign-in); 503 `PROVIDER_NOT_CONFIGURED`, ' +
          '`PROVIDER_UNAVAILABLE`, `OVERLOADED`.',
        body: SetPasswordRequestSchema,
        responses: {
          204: c.noBody(),
          ...problems(
            'RATE_LIMITED',
            'WEAK_PASSWORD',
            'SOCIAL_ACCOUNT',
            'INVALID_ID_TOKEN',
            'REAUTHENTICATION_REQUIRED',
            'PROVIDER_MISMATCH',
            'PASSWORD_ALREADY_SET',
            'PROVIDER_NOT_CONFIGURED',
            'PROVIDER_UNAVAILABLE',
          ),
        },
        metadata: meta('login'),
      },
      verifyPassword: {
        method: 'POST',
        path: '/api/auth/verify-password',
        summary: 'Re-authentication gate before sensitive screens',
        description:
          'Checks the password of a LOCAL account; on success the session counts as re-authenticated for 5 minutes, which withdrawal requires.',
        body: VerifyPasswordRequestSchema,
        responses: {
          200: VerifyPasswordResponseSchema,
          ...problems('RATE_LIMITED', 'INVALID_PASSWORD', 'SOCIAL_ACCOUNT'),
        },
        metadata: meta('login'),
      },
      getProfile: {
        method: 'GET',
        path: '/api/auth/profile',
        summary: 'Full profile of the caller',
        responses: { 200: MemberResponseSchema },
        metadata: meta('login'),
      },
      updateProfile: {
        method: 'PUT',
        path: '/api/auth/profile',
        summary: 'Update sign-up information (display name)',
        body: UpdateProfileRequestSchema,
        responses: { 200: MemberResponseSchema },
        metadata: meta('login'),
      },
      updateProfileImage: {
        method: 'PUT',
        path: '/api/auth/profile-image',
        summary: 'Set the custom picture (empty data URL clears it)',
        body: ProfileImageRequestSchema,
        responses: { 200: MemberResponseSchema, ...problems('INVALID_IMAGE', 'IMAGE_TOO_LARGE') },
        metadata: meta('login'),
      },
      points: {
        method: 'GET',
        path: '/api/auth/points',
        summary: 'Point balance',
        responses: { 200: PointsResponseSchema },
        metadata: meta('login'),
      },
      pointHistory: {
        method: 'GET',
        path: '/api/auth/point-history',
        summary: 'Point history, newest first, at most 100',
        responses: { 200: PointHistoryResponseSchema },
        metadata: meta('login'),
      },
      reauthenticate: {
        method: 'POST',
        path: '/api/auth/reauthenticate',
        summary: 'Re-authentication gate for provider accounts (a fresh provider token)',
        description:
          'For accounts that sign in with an identity provider: a token of the provider linked to this account, issued within 5 minutes, re-authenticates the session for 5 minutes.',
        body: ReauthenticateRequestSchema,
        responses: {
          200: VerifyPasswordResponseSchema,
          ...problems(
            'RATE_LIMITED',
            'INVALID_ID_TOKEN',
            'PROVIDER_MISMATCH',
            'PROVIDER_NOT_CONFIGURED',
            'PROVIDER_UNAVAILABLE',
          ),
        },
        metadata: meta('login'),
      },
      listSessions: {
        method: 'GET',
        path: '/api/auth/sessions',
        summary: "The caller's live sessions, oldest first",
        responses: { 200: MemberSessionListSchema },
        metadata: meta('login'),
      },
      endOtherSessions: {
        method: 'DELETE',
        path: '/api/auth/sessions',
        summary: 'End every session of the caller except this one',
        responses: { 200: EndedSessionsSchema },
        metadata: meta('login'),
      },
      endSession: {
        method: 'DELETE',
        path: '/api/auth/sessions/:id',
        summary: 'End one session of the caller (sign out a device)',
        pathParams: IdParamSchema,
        responses: { 204: c.noBody() },
        metadata: meta('login'),
      },
      deleteMe: {
        method: 'DELETE',
        path: '/api/auth/me',
        summary: 'Withdraw: permanently delete the caller and all their data',
        description:
          'Requires a re-authentication in this session within the last 5 minutes (`verify-password`, or `reauthenticate` for provider accounts): otherwise 403 REAUTHENTICATION_REQUIRED.',
        responses: { 204: c.noBody(), ...problems('REAUTHENTICATION_REQUIRED', 'LAST_ADMIN', 'NOT_FOUND') },
        metadata: meta('login'),
      },
      signupEnabled: {
        method: 'GET',
        path: '/api/auth/signup-enabled',
        summary: 'Whether sign-up is open',
        responses: { 200: SignupEnabledResponseSchema },
        metadata: meta('public'),
      },
      avatar: {
        method: 'GET',
        path: '/api/auth/avatars/:key',
        summary: "A member's own picture, at the URL an author's `avatarUrl` gives",
        description:
          'Public. The key names the member and a hash of the picture, so a new picture has a new URL: the bytes are ' +
          'served with their stored type and `Cache-Control: public, max-age=31536000, immutable`. A key whose ' +
          'picture has since changed or been removed → 404 (clients take the current URL from fresh data).',
        pathParams: AvatarKeyParamSchema,
        responses: { 200: z.any().describe('Image bytes') },
        metadata: meta('public', { binaryResponse: 'image/*' }),
      },
    },
    routerOptions,
  ),
);

/** Component names of the member area (see schema-names.ts). */
export const authNamedSchemas: NamedSchemas = {
  Member: MemberResponseSchema,
  Session: SessionResponseSchema,
  SignupResult: SignupResponseSchema,
  IdpOneClientId: IdpOneClientIdResponseSchema,
  PasswordVerification: VerifyPasswordResponseSchema,
  ReauthenticationRequest: ReauthenticateRequestSchema,
  SetPasswordRequest: SetPasswordRequestSchema,
  MemberSession: MemberSessionSchema,
  MemberSessionList: MemberSessionListSchema,
  EndedSessions: EndedSessionsSchema,
  PointBalance: PointsResponseSchema,
  PointHistoryItem: PointHistoryItemSchema,
  PointHistory: PointHistoryResponseSchema,
  SignupEnabled: SignupEnabledResponseSchema,
  Role: RoleSchema,
  MemberStatus: MemberStatusSchema,
  Provider: ProviderSchema,
};
