import type { AdminMember, MemberResponse } from '@nestegg/contract';
import type { Member } from '@nestegg/db';

/** The member columns both views show (the admin list leaves out the picture, which can be large). */
export type MemberSummaryRow = Omit<
  Member,
  'passwordHash' | 'emailVerified' | 'idponeId' | 'idptwoId' | 'profileImage' | 'profileImageHash' | 'updatedAt'
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

/** The member as the api shows it to its owner. */
export function toMemberResponse(member: Member): MemberResponse {
  return { ...toAdminMember(member), profileImage: member.profileImage };
}
