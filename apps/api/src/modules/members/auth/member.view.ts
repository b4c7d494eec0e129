import type { AdminMember, MemberResponse } from '@nestegg/contract';
import { type Member, member } from '@nestegg/db';
import { isoInstant } from '../../../lib/instants.js';

/** The member columns both views show (the admin list leaves out the picture, which can be large). */
export type MemberSummaryRow = Omit<
  Member,
  | 'passwordHash'
  | 'emailVerified'
  | 'idponeId'
  | 'idptwoId'
  | 'profileImage'
  | 'profileImageHash'
  | 'updatedAt'
  | 'appAccountToken'
>;

/** The member as an admin sees it in the member list. */
export function toAdminMember(row: MemberSummaryRow): AdminMember {
  return {
    id: row.id,
    email: row.email,
    displayName: row.displayName,
    role: row.role,
    status: row.status,
    provider: row.provider,
    plan: row.plan,
    planExpiresAt: row.planExpiresAt?.toISOString() ?? null,
    planProduct: row.planProduct,
    planAutoRenew: row.planAutoRenew,
    points: row.points,
    idpOnePicture: row.idponePicture,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The summary's columns, to select (the admin list reads them raw, decision P27). */
export const memberSummarySelection = {
  id: member.id,
  email: member.email,
  displayName: member.displayName,
  role: member.role,
  status: member.status,
  provider: member.provider,
  plan: member.plan,
  planExpiresAt: member.planExpiresAt,
  planProduct: member.planProduct,
  planAutoRenew: member.planAutoRenew,
  points: member.points,
  idponePicture: member.idponePicture,
  createdAt: member.createdAt,
};

/** The member response's columns: the summary and the picture. */
export const memberResponseSelection = { ...memberSummarySelection, profileImage: member.profileImage };

/** The same columns as postgres.js reads them for a raw list (`rawSelect`): by column name, instants as text. */
export interface MemberSummaryColumns {
  id: number;
  email: string | null;
  display_name: string;
  role: Member['role'];
  status: Member['status'];
  provider: Member['provider'];
  plan: Member['plan'];
  plan_expires_at: string | null;
  plan_product: string | null;
  plan_auto_renew: boolean;
  points: number;
  idpone_picture: string | null;
  created_at: string;
}

/** `toAdminMember` for a row of the admin list, read raw. */
export function columnsToAdminMember(row: MemberSummaryColumns): AdminMember {
  return {
    id: row.id,
    email: row.email,
    displayName: row.display_name,
    role: row.role,
    status: row.status,
    provider: row.provider,
    plan: row.plan,
    planExpiresAt: row.plan_expires_at === null ? null : isoInstant(row.plan_expires_at),
    planProduct: row.plan_product,
    planAutoRenew: row.plan_auto_renew,
    points: row.points,
    idpOnePicture: row.idpone_picture,
    createdAt: isoInstant(row.created_at),
  };
}

/** The member response's columns read raw (`memberResponseSelection`). */
export interface MemberResponseColumns extends MemberSummaryColumns {
  profile_image: string | null;
}

/** `toMemberResponse` for a row read raw: the profile read. */
export function columnsToMemberResponse(row: MemberResponseColumns): MemberResponse {
  return { ...columnsToAdminMember(row), profileImage: row.profile_image };
}

/** The member as the api shows it to its owner. */
export function toMemberResponse(member: Member): MemberResponse {
  return { ...toAdminMember(member), profileImage: member.profileImage };
}
