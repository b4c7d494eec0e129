import type { Author, PostDetail, PostSummary, VoteDirection } from '@nestegg/contract';
import { member, post, postVote } from '@nestegg/db';
import { type SQL, sql } from 'drizzle-orm';
import { type AuthorRow, authorColumns, isHot, toAuthor } from '../kernel/index.js';

/** The columns of a post in a list: the post, its author (never the picture itself) and the caller's vote. */
export const postSummaryColumns = {
  id: post.id,
  category: post.category,
  title: post.title,
  tags: post.tags,
  notice: post.notice,
  blocked: post.blocked,
  hot: isHot('"post"'),
  upCount: post.upCount,
  downCount: post.downCount,
  commentCount: post.commentCount,
  createdAt: post.createdAt,
  updatedAt: post.updatedAt,
  author: authorColumns,
  myVote: postVote.direction,
};

/**
 * The 20 latest up-voters (newest vote first) as JSON, read from the (post, direction, created_at, member)
 * index. Spelled out: drizzle writes a lone table's columns unqualified inside a subquery.
 */
export const recommendersPreview = (limit: number): SQL<AuthorRow[]> => sql<AuthorRow[]>`coalesce((
  select json_agg(json_build_object('id', m.id, 'displayName', m.display_name,
           'profileImageHash', m.profile_image_hash, 'idponePicture', m.idpone_picture)
         order by r.created_at desc, r.member_id desc)
    from (select v.member_id, v.created_at from post_vote v
           where v.post_id = "post"."id" and v.direction = 'UP'
           order by v.created_at desc, v.member_id desc limit ${sql.raw(String(limit))}) r
    join ${member} m on m.id = r.member_id), '[]'::json)`;

export interface PostSummaryRow {
  id: number;
  category: PostSummary['category'];
  title: string;
  tags: string[];
  notice: boolean;
  blocked: boolean;
  hot: boolean;
  upCount: number;
  downCount: number;
  commentCount: number;
  createdAt: Date;
  updatedAt: Date;
  author: AuthorRow;
  myVote: VoteDirection | null;
}

export interface PostDetailRow extends PostSummaryRow {
  body: string;
  blockReason: string | null;
  recommenders: AuthorRow[];
}

export function toPostSummary(row: PostSummaryRow, publicUrl: string): PostSummary {
  return {
    id: row.id,
    category: row.category,
    title: row.title,
    author: toAuthor(row.author, publicUrl),
    tags: row.tags,
    notice: row.notice,
    blocked: row.blocked,
    hot: row.hot,
    upCount: row.upCount,
    downCount: row.downCount,
    myVote: row.myVote,
    commentCount: row.commentCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The block reason is for admins' eyes only. */
export function toPostDetail(row: PostDetailRow, publicUrl: string, isAdmin: boolean): PostDetail {
  const recommenders: Author[] = row.recommenders.map((author) => toAuthor(author, publicUrl));
  return {
    ...toPostSummary(row, publicUrl),
    body: row.body,
    blockReason: isAdmin ? row.blockReason : null,
    recommenders,
  };
}
