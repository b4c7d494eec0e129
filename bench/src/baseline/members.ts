import type { BaselineDeps } from '../rows/types.js';

/** Member rows as postgres.js returns them, and the JSON the api makes of them (apps/api/src/modules/members/auth/member.view.ts). */

export interface MemberSummaryRow {
  id: number;
  email: string | null;
  display_name: string;
  role: string;
  status: string;
  provider: string;
  plan: string;
  plan_expires_at: Date | null;
  plan_product: string | null;
  plan_auto_renew: boolean;
  points: number;
  idpone_picture: string | null;
  created_at: Date;
}

export interface MemberProfileRow extends MemberSummaryRow {
  profile_image: string | null;
}

export interface MemberRow extends MemberProfileRow {
  password_hash: string | null;
}

/** The profile read's statement: the member response's columns (the api's `memberResponseSelection`). */
export const memberProfileById = (deps: BaselineDeps, id: number) =>
  deps.sql<
    MemberProfileRow[]
  >`select "id", "email", "display_name", "role", "status", "provider", "plan", "plan_expires_at", "plan_product", "plan_auto_renew", "points", "idpone_picture", "created_at", "profile_image" from "member" where "member"."id" = ${id}`;

export function toAdminMember(row: MemberSummaryRow) {
  return {
    id: row.id,
    email: row.email,
    displayName: row.display_name,
    role: row.role,
    status: row.status,
    provider: row.provider,
    plan: row.plan,
    planExpiresAt: row.plan_expires_at?.toISOString() ?? null,
    planProduct: row.plan_product,
    planAutoRenew: row.plan_auto_renew,
    points: row.points,
    idpOnePicture: row.idpone_picture,
    createdAt: row.created_at.toISOString(),
  };
}

export function toMemberResponse(row: MemberProfileRow) {
  return { ...toAdminMember(row), profileImage: row.profile_image };
}
