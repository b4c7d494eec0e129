import type { Author } from '@nestegg/contract';
import { member } from '@nestegg/db';
import { avatarKeyOf } from '../../members/avatars/index.js';

/**
 * The member columns an author needs: never the picture itself (a data URL of up to ~700 KB), only its
 * hash, which versions the picture's public URL.
 */
export const authorColumns = {
  id: member.id,
  displayName: member.displayName,
  profileImageHash: member.profileImageHash,
  idponePicture: member.idponePicture,
};

export interface AuthorRow {
  id: number;
  displayName: string;
  profileImageHash: string | null;
  idponePicture: string | null;
}

/** The absolute avatar URL: the member's own picture (served by us) first, else the identity provider one picture. */
export function avatarUrlOf(row: AuthorRow, publicUrl: string): string | null {
  if (row.profileImageHash) return `${publicUrl}/api/auth/avatars/${avatarKeyOf(row.id, row.profileImageHash)}`;
  return row.idponePicture;
}

/** An author as the board shows it. */
export function toAuthor(row: AuthorRow, publicUrl: string): Author {
  return { id: row.id, displayName: row.displayName, avatarUrl: avatarUrlOf(row, publicUrl) };
}
