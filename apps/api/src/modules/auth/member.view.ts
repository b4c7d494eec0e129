import type { MemberResponse } from '@nestegg/contract';
import type { Member } from '@nestegg/db';

/** The member as the api shows it to its owner. */
export function toMemberResponse(member: Member): MemberResponse {
  return {
    id: member.id,
    email: member.email,
    displayName: member.displayName,
    role: member.role,
    status: member.status,
    provider: member.provider,
    plan: member.plan,
    planExpiresAt: member.planExpiresAt?.toISOString() ?? null,
    planProduct: member.planProduct,
    planAutoRenew: member.planAutoRenew,
    points: member.points,
    idpOnePicture: member.idponePicture,
    profileImage: member.profileImage,
    createdAt: member.createdAt.toISOString(),
  };
}
