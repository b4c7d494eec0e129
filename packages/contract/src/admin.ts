/** Admin area: members, plan/role/status, sign-up switch, default categories. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  CategoryNameSchema,
  CategoryTypeSchema,
  CursorSchema,
  IdParamSchema,
  IdSchema,
  listOf,
  MAX_OFFSET_ROWS,
  meta,
  PageQuerySchema,
  PlanSchema,
  paginated,
  problems,
  ReorderBodySchema,
  routerOptions,
  SortOrderSchema,
  strictInput,
  withCommonProblems,
} from './common.js';
import { MemberResponseSchema, MemberStatusSchema, RoleSchema } from './member.js';
import type { NamedSchemas } from './schema-names.js';
import { text } from './text.js';

const c = initContract();

// ---------------------------------------------------------------------------
// Members
// ---------------------------------------------------------------------------

/** The admin member list omits the (large) profile image. */
export const AdminMemberSchema = MemberResponseSchema.omit({ profileImage: true });
export type AdminMember = z.infer<typeof AdminMemberSchema>;

/** A search counts its matches up to this many; past it, `total` is this number and marked a lower bound. */
export const ADMIN_SEARCH_COUNT_LIMIT = 10_000;

export const AdminMemberListQuerySchema = PageQuerySchema.extend({
  q: text().trim().max(100).optional().describe('Case-insensitive search on e-mail and display name'),
  cursor: CursorSchema.optional().describe('Next page after a previous `nextCursor` (instead of `page`)'),
});
export type AdminMemberListQuery = z.infer<typeof AdminMemberListQuerySchema>;
export const AdminMemberPageSchema = paginated(AdminMemberSchema).extend({
  total: z
    .number()
    .int()
    .min(0)
    .describe(
      `Every member (kept by the database, exact); with \`q\`, the matches counted up to ${ADMIN_SEARCH_COUNT_LIMIT.toLocaleString('en')} (more: that number, and \`totalIsLowerBound\` is true)`,
    ),
  totalIsLowerBound: z.boolean().describe('`total` stopped counting at its limit: there are more matches'),
  nextCursor: CursorSchema.nullable().describe('Pass as `cursor` for the next page; null on the last page'),
});
export type AdminMemberPage = z.infer<typeof AdminMemberPageSchema>;

export const SetPlanRequestSchema = z.object({ plan: PlanSchema });
export type SetPlanRequest = z.infer<typeof SetPlanRequestSchema>;
export const SetRoleRequestSchema = z.object({ role: RoleSchema });
export type SetRoleRequest = z.infer<typeof SetRoleRequestSchema>;
export const SetStatusRequestSchema = z.object({ status: MemberStatusSchema });
export type SetStatusRequest = z.infer<typeof SetStatusRequestSchema>;

export const SignupSettingSchema = z.object({ enabled: z.boolean() });
export type SignupSetting = z.infer<typeof SignupSettingSchema>;

// ---------------------------------------------------------------------------
// Default categories (field schemas shared with the ledger's categories live in common.ts)
// ---------------------------------------------------------------------------

export const DefaultCategorySchema = z.object({
  id: IdSchema,
  name: text(),
  type: CategoryTypeSchema,
  parentId: IdSchema.nullable().describe('null for a top-level category'),
  sortOrder: SortOrderSchema,
});
export type DefaultCategory = z.infer<typeof DefaultCategorySchema>;
export const DefaultCategoryListSchema = listOf(DefaultCategorySchema);
export type DefaultCategoryList = z.infer<typeof DefaultCategoryListSchema>;

export const CreateDefaultCategoryRequestSchema = z.object({
  name: CategoryNameSchema,
  type: CategoryTypeSchema,
  parentId: IdSchema.nullable().optional().describe('Top-level parent; omit or null for a top-level category'),
});
export type CreateDefaultCategoryRequest = z.infer<typeof CreateDefaultCategoryRequestSchema>;
export const UpdateDefaultCategoryRequestSchema = CreateDefaultCategoryRequestSchema.partial();
export type UpdateDefaultCategoryRequest = z.infer<typeof UpdateDefaultCategoryRequestSchema>;

// ---------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------

export const adminContract = withCommonProblems(
  c.router(
    {
      listMembers: {
        method: 'GET',
        path: '/api/admin/members',
        summary: 'Member list, newest first, optionally filtered by `q`',
        description: `Pages by \`cursor\` (keyset on id: flat cost at any depth; send the previous page's \`nextCursor\`, \`page\` is then ignored) or by \`page\` (offset, at most ${MAX_OFFSET_ROWS.toLocaleString('en')} rows deep: deeper is 400 \`OFFSET_TOO_DEEP\`). Every page carries \`nextCursor\`.`,
        query: AdminMemberListQuerySchema,
        responses: { 200: AdminMemberPageSchema, ...problems('OFFSET_TOO_DEEP', 'CURSOR_INVALID') },
        metadata: meta('admin'),
      },
      setMemberPlan: {
        method: 'PUT',
        path: '/api/admin/members/:id/plan',
        summary: 'Set a plan permanently (no expiry; subscription info cleared)',
        pathParams: IdParamSchema,
        body: SetPlanRequestSchema,
        responses: { 200: AdminMemberSchema, ...problems('CANNOT_MODIFY_SELF') },
        metadata: meta('admin'),
      },
      setMemberRole: {
        method: 'PUT',
        path: '/api/admin/members/:id/role',
        summary: 'Change a member role (not your own; the last active administrator stays one)',
        pathParams: IdParamSchema,
        body: SetRoleRequestSchema,
        responses: { 200: AdminMemberSchema, ...problems('CANNOT_MODIFY_SELF', 'LAST_ADMIN') },
        metadata: meta('admin'),
      },
      setMemberStatus: {
        method: 'PUT',
        path: '/api/admin/members/:id/status',
        summary: 'Suspend or reactivate a member (not yourself); suspending revokes their sessions',
        pathParams: IdParamSchema,
        body: SetStatusRequestSchema,
        responses: { 200: AdminMemberSchema, ...problems('CANNOT_MODIFY_SELF') },
        metadata: meta('admin'),
      },
      deleteMember: {
        method: 'DELETE',
        path: '/api/admin/members/:id',
        summary: 'Delete a member and all their data (not yourself, not the last active administrator)',
        pathParams: IdParamSchema,
        responses: { 204: c.noBody(), ...problems('CANNOT_MODIFY_SELF', 'LAST_ADMIN') },
        metadata: meta('admin'),
      },
      getSignupSetting: {
        method: 'GET',
        path: '/api/admin/settings/signup',
        summary: 'Whether sign-up is allowed',
        responses: { 200: SignupSettingSchema },
        metadata: meta('admin'),
      },
      setSignupSetting: {
        method: 'PUT',
        path: '/api/admin/settings/signup',
        summary: 'Allow or refuse sign-up',
        body: SignupSettingSchema,
        responses: { 200: SignupSettingSchema },
        metadata: meta('admin'),
      },
      listDefaultCategories: {
        method: 'GET',
        path: '/api/admin/default-categories',
        summary: 'All default categories, ordered by parent then sortOrder',
        responses: { 200: DefaultCategoryListSchema },
        metadata: meta('admin'),
      },
      createDefaultCategory: {
        method: 'POST',
        path: '/api/admin/default-categories',
        summary: 'Create a default category (goes last among its siblings)',
        body: CreateDefaultCategoryRequestSchema,
        responses: {
          201: DefaultCategorySchema,
          ...problems('NOT_FOUND', 'CATEGORY_TOO_DEEP', 'CATEGORY_TYPE_MISMATCH', 'DUPLICATE_CATEGORY_NAME'),
        },
        metadata: meta('admin'),
      },
      reorderDefaultCategories: {
        method: 'PUT',
        path: '/api/admin/default-categories/reorder',
        summary: 'New order of sibling default categories',
        body: ReorderBodySchema,
        responses: { 204: c.noBody(), ...problems('INVALID_REORDER', 'NOT_FOUND') },
        metadata: meta('admin'),
      },
      updateDefaultCategory: {
        method: 'PUT',
        path: '/api/admin/default-categories/:id',
        summary: 'Update a default category',
        pathParams: IdParamSchema,
        body: UpdateDefaultCategoryRequestSchema,
        responses: {
          200: DefaultCategorySchema,
          ...problems(
            'INVALID_PARENT',
            'CATEGORY_TOO_DEEP',
            'CATEGORY_TYPE_MISMATCH',
            'CATEGORY_HAS_CHILDREN',
            'DUPLICATE_CATEGORY_NAME',
          ),
        },
        metadata: meta('admin'),
      },
      deleteDefaultCategory: {
        method: 'DELETE',
        path: '/api/admin/default-categories/:id',
        summary: 'Delete a default category (refused while it has children)',
        pathParams: IdParamSchema,
        responses: { 204: c.noBody(), ...problems('CATEGORY_HAS_CHILDREN') },
        metadata: meta('admin'),
      },
    },
    routerOptions,
  ),
);

/** Component names of the admin area (see schema-names.ts). */
export const adminNamedSchemas: NamedSchemas = {
  AdminMember: AdminMemberSchema,
  AdminMemberPage: AdminMemberPageSchema,
  SignupSetting: SignupSettingSchema,
  // The request form is closed and the answer open (C46): one component each.
  SignupSettingRequest: strictInput(SignupSettingSchema),
  DefaultCategory: DefaultCategorySchema,
  DefaultCategoryList: DefaultCategoryListSchema,
};
