import type { BoardCategory, Comment, MyComment, VoteDirection } from '@nestegg/contract';
import { comment, commentVote } from '@nestegg/db';
import { type AuthorRow, authorColumns, isHot, toAuthor } from '../kernel/index.js';

/** The columns of a comment as the board shows it: the comment, its author and the caller's vote. */
export const commentColumns = {
  id: comment.id,
  postId: comment.postId,
  body: comment.body,
  blocked: comment.blocked,
  hot: isHot('"comment"'),
  upCount: comment.upCount,
  downCount: comment.downCount,
  createdAt: comment.createdAt,
  updatedAt: comment.updatedAt,
  author: authorColumns,
  myVote: commentVote.direction,
};

export interface CommentRow {
  id: number;
  postId: number;
  body: string;
  blocked: boolean;
  hot: boolean;
  upCount: number;
  downCount: number;
  createdAt: Date;
  updatedAt: Date;
  author: AuthorRow;
  myVote: VoteDirection | null;
}

export interface MyCommentRow extends CommentRow {
  postTitle: string;
  postCategory: BoardCategory;
}

/** A blocked comment keeps its place in the thread, with its body hidden from everyone but admins. */
export function toComment(row: CommentRow, publicUrl: string, isAdmin: boolean): Comment {
  return {
    id: row.id,
    postId: row.postId,
    body: row.blocked && !isAdmin ? null : row.body,
    author: toAuthor(row.author, publicUrl),
    blocked: row.blocked,
    hot: row.hot,
    upCount: row.upCount,
    downCount: row.downCount,
    myVote: row.myVote,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toMyComment(row: MyCommentRow, publicUrl: string, isAdmin: boolean): MyComment {
  return { ...toComment(row, publicUrl, isAdmin), postTitle: row.postTitle, postCategory: row.postCategory };
}
