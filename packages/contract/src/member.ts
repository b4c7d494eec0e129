/**
 * The member resource, shared by the member area (auth) and the admin area: kept apart so that
 * importing one area does not bundle the other's routes.
 */
import { z } from 'zod';
import { IdSchema, InstantSchema, PlanSchema } from './common.js';
import { text } from './text.js';

export const RoleSchema = z.enum(['USER', 'ADMIN']);
export type Role = z.infer<typeof RoleSchema>;
export const MemberStatusSchema = z.enum(['ACTIVE', 'SUSPENDED']);
export type MemberStatus = z.infer<typeof MemberStatusSchema>;
export const ProviderSchema = z.enum(['LOCAL', 'IDPONE', 'IDPTWO']);
export type Provider = z.infer<typeof ProviderSchema>;

/** The full member view (C4); the admin list omits `profileImage` (`AdminMemberSchema`). */
export const MemberResponseSchema = z.object({
  id: IdSchema,
  email: text().nullable().describe('null for a provider account that shared no e-mail'),
  displayName: text(),
  role: RoleSchema,
  status: MemberStatusSchema,
  provider: ProviderSchema,
  plan: PlanSchema,
  planExpiresAt: InstantSchema.nullable().describe('null: no expiry (free, or set by an admin)'),
  planProduct: text().nullable(),
  planAutoRenew: z.boolean(),
  points: z.number().int().min(0),
  idpOnePicture: text().nullable(),
  profileImage: text().nullable(),
  createdAt: InstantSchema,
});
export type MemberResponse = z.infer<typeof MemberResponseSchema>;
