/** The path key of a member's picture: the member and the picture's hash, so a new picture has a new URL. */
export const avatarKeyOf = (memberId: number, hash: string): string => `${memberId}-${hash}`;
