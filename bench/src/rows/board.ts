import { commentListBaseline, postDetailBaseline, postListBaseline, reportListBaseline } from '../baseline/board.js';
import { encodeCursor } from '../baseline/ledger.js';
import { BOARD_ADMIN_EMAIL, BOARD_MEMBER_EMAIL, boardDataset, DETAIL_TITLE, LIST_TAG } from '../datasets/board.js';
import { LIST_TARGETS } from './targets.js';
import type { BenchRow, RowSetup } from './types.js';

/**
 * Board rows (issue 11 "Performance"): the post list as a signed-in member who has voted sees it (every
 * board, one board, one tag, a deep cursor page), a post with its up-voters, its comments, and the admin's
 * report list, while the board grows from 10,000 to 1,000,000 posts. Every answer reads an index range, a
 * trigger-kept counter or a fixed moderation queue, so each row is held to the list targets, flatness
 * included (the detail, a single read, too: the table it reads grows).
 */

const SIZES = { quick: [10_000, 100_000], full: [10_000, 1_000_000] };
const PAGE_SIZE = 20;
/** How far from the end of the every-board list the deep cursor page starts. */
const ROWS_BEFORE_END = 100;

type PathOf = (setup: RowSetup) => Promise<string> | string;

function boardRow(key: string, name: string, email: string, path: PathOf, baseline: BenchRow['baseline']): BenchRow {
  return {
    key,
    name,
    dataset: boardDataset,
    sizes: SIZES,
    redis: 'up',
    targets: LIST_TARGETS,
    request: async (setup) => ({ method: 'GET', path: await path(setup), headers: await setup.bearer(email) }),
    baseline,
  };
}

const postsPath = (query: Record<string, string | number>) => {
  const pairs = Object.entries(query).map(([key, value]): [string, string] => [key, String(value)]);
  return `/api/board/posts?${new URLSearchParams(pairs)}`;
};

/** The cursor the every-board list gives ROWS_BEFORE_END visible rows before its end (the oldest posts). */
async function deepPath(setup: RowSetup): Promise<string> {
  const [row] = await setup.sql<{ id: number }[]>`
    select id from post where not notice and not blocked order by id asc offset ${ROWS_BEFORE_END} limit 1`;
  if (!row) throw new Error('the board has too few posts for a deep page');
  return postsPath({ cursor: encodeCursor([0, row.id]), size: PAGE_SIZE });
}

async function detailId(setup: RowSetup): Promise<number> {
  const [row] = await setup.sql<{ id: number }[]>`select id from post where id <= 100 and title = ${DETAIL_TITLE}`;
  if (!row) throw new Error('no seeded detail post');
  return row.id;
}

const memberRow = (key: string, name: string, path: PathOf, baseline: BenchRow['baseline']) =>
  boardRow(key, name, BOARD_MEMBER_EMAIL, path, baseline);

export const boardRows: BenchRow[] = [
  memberRow(
    'board.posts.first',
    'GET /api/board/posts page 1, every board (hot posts, my votes)',
    () => postsPath({ page: 1, size: PAGE_SIZE }),
    postListBaseline,
  ),
  memberRow(
    'board.posts.board',
    'GET /api/board/posts page 1, one board',
    () => postsPath({ category: 'saving', page: 1, size: PAGE_SIZE }),
    postListBaseline,
  ),
  memberRow(
    'board.posts.tag',
    `GET /api/board/posts page 1, tag=${LIST_TAG} (one post in four), every board`,
    () => postsPath({ tag: LIST_TAG, page: 1, size: PAGE_SIZE }),
    postListBaseline,
  ),
  memberRow(
    'board.posts.deep',
    `GET /api/board/posts cursor page ${ROWS_BEFORE_END} rows before the end, every board`,
    deepPath,
    postListBaseline,
  ),
  memberRow(
    'board.post',
    'GET /api/board/posts/:id (20 latest up-voters)',
    async (setup) => `/api/board/posts/${await detailId(setup)}`,
    postDetailBaseline,
  ),
  memberRow(
    'board.comments',
    'GET /api/board/posts/:id/comments page 1 (hot first; of 150)',
    async (setup) => `/api/board/posts/${await detailId(setup)}/comments?page=1&size=${PAGE_SIZE}`,
    commentListBaseline,
  ),
  boardRow(
    'board.reports',
    'GET /api/board/reports page 1 (admin)',
    BOARD_ADMIN_EMAIL,
    () => `/api/board/reports?page=1&size=${PAGE_SIZE}`,
    reportListBaseline,
  ),
];
