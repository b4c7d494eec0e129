import type { BoardCategory } from '@nestegg/contract';
import { boardTag, type DbOrTx, tagCategory } from '@nestegg/db';
import { sql } from 'drizzle-orm';
import { BadRequestError } from '../../../lib/errors.js';

/**
 * A post's tags must be names of tags in the groups shown on its board (a group without boards is shown on
 * every board): what `GET /api/board/tag-groups?category=` offers. Unknown names → 400 UNKNOWN_BOARD_TAG.
 */
export async function assertBoardTags(db: DbOrTx, category: BoardCategory, tags: readonly string[]): Promise<void> {
  if (tags.length === 0) return;
  const [row] = await db.execute<{ known: string[] }>(sql`
    select coalesce(array_agg(distinct t.name), '{}') as known
      from ${boardTag} t join ${tagCategory} g on g.id = t.tag_category_id
     where t.name = any(${sql.param([...tags])}::text[])
       and (g.boards = '{}'::board_category[] or ${category}::board_category = any(g.boards))`);
  const known = new Set(row?.known ?? []);
  const unknown = tags.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new BadRequestError('UNKNOWN_BOARD_TAG', `Not a tag of the "${category}" board: ${unknown.join(', ')}.`);
  }
}
