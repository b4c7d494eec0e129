/**
 * A LIKE/ILIKE pattern that finds `text` anywhere: `%`, `_` and the escape character itself match literally
 * (PostgreSQL's default LIKE escape is `\`).
 */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
