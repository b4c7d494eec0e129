import { encodeCursor } from '../baseline/ledger.js';
import { type MemberSummaryRow, toAdminMember } from '../baseline/members.js';
import { resolveSession } from '../baseline/session.js';
import { BENCH_ADMIN, membersDataset } from '../datasets/members.js';
import { LIST_TARGETS } from './targets.js';
import type { BaselineDeps, BaselineHandler, BenchRow, RowSetup } from './types.js';

/** Admin area rows: the member list, newest first, at its first page (offset) and at its last (cursor). */

const FIRST_PAGE_SIZES = { quick: [1_000, 10_000], full: [10_000, 100_000, 1_000_000] };
/** The last page is read with the cursor (keyset on id), so it runs at every size the first page does. */
const LAST_PAGE_SIZES = FIRST_PAGE_SIZES;
const PAGE_SIZE = 20;

const PAGE_COLUMNS =
  '"id", "email", "display_name", "role", "status", "provider", "plan", "plan_expires_at", "plan_product", "plan_auto_renew", "points", "idpone_picture", "created_at"';

/** The api's statements (members.service.ts): the page (one row more than asked), and the maintained count. */
function pageRows(deps: BaselineDeps, limit: number, offset: number, before: number | null) {
  return before === null
    ? deps.sql.unsafe<MemberSummaryRow[]>(
        `select ${PAGE_COLUMNS} from "member" order by "member"."id" desc limit $1 offset $2`,
        [limit, offset],
        { prepare: true },
      )
    : deps.sql.unsafe<MemberSummaryRow[]>(
        `select ${PAGE_COLUMNS} from "member" where "member"."id" < $1 order by "member"."id" desc limit $2 offset $3`,
        [before, limit, offset],
        { prepare: true },
      );
}

function listPage(deps: BaselineDeps, limit: number, offset: number, before: number | null) {
  return Promise.all([
    pageRows(deps, limit, offset, before),
    deps.sql<{ members: string }[]>`select "members" from "member_count"`,
  ]);
}

function memberListBaseline(deps: BaselineDeps): BaselineHandler {
  return async (request, reply) => {
    const session = await resolveSession(deps, request);
    if (!session) return reply.code(401).send({ code: 'UNAUTHENTICATED' });
    if (session.role !== 'ADMIN') return reply.code(403).send({ code: 'ADMIN_REQUIRED' });
    const query = request.query as { page?: string; size?: string; cursor?: string };
    const before = query.cursor === undefined ? null : (decodeCursor(query.cursor) as number);
    const page = before === null ? Number(query.page ?? 1) : 1;
    const size = Number(query.size ?? PAGE_SIZE);
    const [rows, [counted]] = await listPage(deps, size + 1, before === null ? (page - 1) * size : 0, before);
    const items = rows.slice(0, size);
    const last = items[items.length - 1];
    return {
      items: items.map(toAdminMember),
      page,
      size,
      total: Number(counted?.members ?? 0),
      totalIsLowerBound: false,
      nextCursor: rows.length > size && last ? encodeCursor([last.id]) : null,
    };
  };
}

/** The id in a `[1, id]` cursor. */
function decodeCursor(cursor: string): number {
  const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [number, number];
  return decoded[1];
}

function memberListRequest(query: (setup: RowSetup) => Promise<string>): BenchRow['request'] {
  return async (setup: RowSetup) => ({
    method: 'GET',
    path: `/api/admin/members?${await query(setup)}`,
    headers: await setup.bearer(BENCH_ADMIN.email),
  });
}

/** A cursor page holding the last PAGE_SIZE members (the oldest): after the member just newer than them. */
async function lastPageQuery(setup: RowSetup): Promise<string> {
  const [row] = await setup.sql<{ id: number }[]>`
    select id from member order by id asc offset ${PAGE_SIZE} limit 1`;
  if (!row) throw new Error('too few members for a last page');
  return `size=${PAGE_SIZE}&cursor=${encodeCursor([row.id])}`;
}

export const adminRows: BenchRow[] = [
  {
    key: 'admin.members.first',
    name: 'GET /api/admin/members page 1',
    dataset: membersDataset,
    sizes: FIRST_PAGE_SIZES,
    redis: 'up',
    targets: LIST_TARGETS,
    request: memberListRequest(async () => `page=1&size=${PAGE_SIZE}`),
    baseline: memberListBaseline,
  },
  {
    key: 'admin.members.last',
    name: 'GET /api/admin/members last page (cursor)',
    dataset: membersDataset,
    sizes: LAST_PAGE_SIZES,
    redis: 'up',
    targets: LIST_TARGETS,
    request: memberListRequest(lastPageQuery),
    baseline: memberListBaseline,
  },
];
