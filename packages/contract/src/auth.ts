/** Member area: sign-up, sessions, provider sign-in, profile, password, points, withdrawal. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses, IdSchema, InstantSchema, meta, routerOptions } from './common.js';
import { MemberResponseSchema, MemberStatusSchema, ProviderSchema, RoleSchema } from './member.js';
import type { NamedSchemas } from './schema-names.js';

export * from './member.js';

const c = initContract();

// ---------------------------------------------------------------------------
// Fields
// ---------------------------------------------------------------------------

export const EmailSchema = z.string().trim().toLowerCase().email().max(254);
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
export const PasswordSchema = z.string().min(PASSWORD_MIN).max(PASSWORD_MAX);
/** A password being checked (login, gate): no policy hints, only a sane bound. */
export const PasswordInputSchema = z.string().min(1).max(PASSWORD_MAX);
export const DISPLAY_NAME_MAX = 30;
export const DisplayNameSchema = z.string().trim().min(1).max(DISPLAY_NAME_MAX);

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

export const SessionResponseSchema = z.object({
  token: z.string().describe('Send as `Authorization: Bearer <token>`'),
  expiresAt: InstantSchema,
  member: MemberResponseSchema,
});
export type SessionResponse = z.infer<typeof SessionResponseSchema>;

export const SignupRequestSchema = z.object({
  email: EmailSchema,
  password: PasswordSchema,
  displayName: DisplayNameSchema,
  /** Honeypot: humans leave it empty; anything else is treated as a bot. */
  website: z.string().max(2000).optional().describe('Honeypot: leave empty'),
});
export type SignupRequest = z.infer<typeof SignupRequestSchema>;
export const SignupResponseSchema = z.object({ email: z.string(), displayName: z.string() });
export type SignupResponse = z.infer<typeof SignupResponseSchema>;

export const LoginRequestSchema = z.object({
  email: EmailSchema,
  password: PasswordInputSchema,
  rememberMe: z.boolean().optional().describe('true: the session lasts 30 days'),
});
export type LoginRequest = z.infer<typeof LoginRequestSchema>;

export const IdpOneLoginRequestSchema = z.object({ idToken: z.string().min(1).max(8192) });
export type IdpOneLoginRequest = z.infer<typeof IdpOneLoginRequestSchema>;
export const IdpTwoLoginRequestSchema = z.object({
  identityToken: z.string().min(1).max(8192),
  /** Provider two only sends the name on the first sign-in; the app forwards it. */
  displayName: DisplayNameSchema.optional(),
});
export type IdpTwoLoginRequest = z.infer<typeof IdpTwoLoginRequestSchema>;
export const IdpOneClientIdResponseSchema = z.object({
  clientId: z.string().nullable().describe('null when provider one sign-in is not configured'),
});
export type IdpOneClientIdResponse = z.infer<typeof IdpOneClientIdResponseSchema>;

export const ChangePasswordRequestSchema = z.object({
  currentPassword: PasswordInputSchema,
  newPassword: PasswordSchema,
});
export type ChangePasswordRequest = z.infer<typeof ChangePasswordRequestSchema>;

export const VerifyPasswordRequestSchema = z.object({ password: PasswordInputSchema });
export type VerifyPasswordRequest = z.infer<typeof VerifyPasswordRequestSchema>;
export const VerifyPasswordResponseSchema = z.object({ verified: z.literal(true) });
export type VerifyPasswordResponse = z.infer<typeof VerifyPasswordResponseSchema>;

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
  reason: z.string(),
  createdAt: InstantSchema,
});
export type PointHistoryItem = z.infer<typeof PointHistoryItemSchema>;
export const PointHistoryResponseSchema = z.object({
  items: z.array(PointHistoryItemSchema).max(POINT_HISTORY_MAX).describe('Newest first, at most 100'),
});
export type PointHistoryResponse = z.infer<typeof PointHistoryResponseSchema>;

export const SignupEnabledResponseSchema = z.object({ enabled: z.boolean() });
export type SignupEnabledResponse = z.infer<typeof SignupEnabledResponseSchema>;

// ---------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------

export const authContract = c.router(
  {
    signup: {
      method: 'POST',
      path: '/api/auth/signup',
      summary: 'Create a LOCAL account (no session: log in next)',
      body: SignupRequestSchema,
      responses: { 201: SignupResponseSchema, ...errorResponses(400, 403, 409, 413, 415, 429) },
      metadata: meta('public'),
    },
    login: {
      method: 'POST',
      path: '/api/auth/login',
      summary: 'Log in with e-mail and password',
      body: LoginRequestSchema,
      responses: { 200: SessionResponseSchema, ...errorResponses(400, 401, 403, 413, 415, 429) },
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
      responses: { 200: SessionResponseSchema, ...errorResponses(400, 401, 403, 413, 415, 429) },
      metadata: meta('public'),
    },
    idpTwoLogin: {
      method: 'POST',
      path: '/api/auth/idptwo',
      summary: 'Sign in with an identity provider two identity token',
      body: IdpTwoLoginRequestSchema,
      responses: { 200: SessionResponseSchema, ...errorResponses(400, 401, 403, 413, 415, 429) },
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
      responses: { 204: c.noBody(), ...errorResponses(400, 401, 409, 413, 415, 429) },
      metadata: meta('login'),
    },
    verifyPassword: {
      method: 'POST',
      path: '/api/auth/verify-password',
      summary: 'Re-authentication gate before sensitive screens',
      body: VerifyPasswordRequestSchema,
      responses: { 200: VerifyPasswordResponseSchema, ...errorResponses(400, 401, 413, 415, 429) },
      metadata: meta('login'),
    },
    getProfile: {
      method: 'GET',
      path: '/api/auth/profile',
      summary: 'Full profile of the caller',
      responses: { 200: MemberResponseSchema, ...errorResponses(401) },
      metadata: meta('login'),
    },
    updateProfile: {
      method: 'PUT',
      path: '/api/auth/profile',
      summary: 'Update sign-up information (display name)',
      body: UpdateProfileRequestSchema,
      responses: { 200: MemberResponseSchema, ...errorResponses(400, 401, 413, 415) },
      metadata: meta('login'),
    },
    updateProfileImage: {
      method: 'PUT',
      path: '/api/auth/profile-image',
      summary: 'Set the custom picture (empty data URL clears it)',
      body: ProfileImageRequestSchema,
      responses: { 200: MemberResponseSchema, ...errorResponses(400, 401, 413, 415) },
      metadata: meta('login'),
    },
    points: {
      method: 'GET',
      path: '/api/auth/points',
      summary: 'Point balance',
      responses: { 200: PointsResponseSchema, ...errorResponses(401) },
      metadata: meta('login'),
    },
    pointHistory: {
      method: 'GET',
      path: '/api/auth/point-history',
      summary: 'Point history, newest first, at most 100',
      responses: { 200: PointHistoryResponseSchema, ...errorResponses(401) },
      metadata: meta('login'),
    },
    deleteMe: {
      method: 'DELETE',
      path: '/api/auth/me',
      summary: 'Withdraw: permanently delete the caller and all their data',
      responses: { 204: c.noBody(), ...errorResponses(401, 409) },
      metadata: meta('login'),
    },
    signupEnabled: {
      method: 'GET',
      path: '/api/auth/signup-enabled',
      summary: 'Whether sign-up is open',
      responses: { 200: SignupEnabledResponseSchema },
      metadata: meta('public'),
    },
  },
  routerOptions,
);

/** Component names of the member area (see schema-names.ts). */
export const authNamedSchemas: NamedSchemas = {
  Member: MemberResponseSchema,
  Session: SessionResponseSchema,
  SignupResult: SignupResponseSchema,
  IdpOneClientId: IdpOneClientIdResponseSchema,
  PasswordVerification: VerifyPasswordResponseSchema,
  PointBalance: PointsResponseSchema,
  PointHistoryItem: PointHistoryItemSchema,
  PointHistory: PointHistoryResponseSchema,
  SignupEnabled: SignupEnabledResponseSchema,
  Role: RoleSchema,
  MemberStatus: MemberStatusSchema,
  Provider: ProviderSchema,
};
