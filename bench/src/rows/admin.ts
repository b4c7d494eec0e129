import { type MemberSummaryRow, toAdminMember } from '../baseline/members.js';
import { resolveSession } from '../baseline/session.js';
import { BENCH_ADMIN, membersDataset } from '../datasets/members.js';
import { LIST_TARGETS } from './targets.js';
import type { BaselineDeps, BaselineHandler, BenchRow, RowSetup } from './types.js';

/** Admin area rows: the member list, newest first, at its first page and at its last. */

const FIRST_PAGE_SIZES = { quick: [1_000, 10_000], full: [10_000, 100_000, 1_000_000] };
/** OFFSET walks every row before the page: at 1,000,000 a request takes seconds, so the deep page stops at 100,000. */
const LAST_PAGE_SIZES = { quick: [1_000, 10_000], full: [10_000, 100_000] };
const PAGE_SIZE = 20;

/** drizzle leaves `offset 0` out, so page 1 is a statement of its own. */
/** The api's statement: `offset` is a parameter on every page, the first included. */
function pageRows(deps: BaselineDeps, size: number, offset: number) {
  return deps.sql<
    MemberSummaryRow[]
  >`select "id", "email", "display_name", "role", "status", "provider", "plan", "plan_expires_at", "plan_product", "plan_auto_renew", "points", "idpone_picture", "created_at" from "member" order by "member"."id" desc limit ${size} offset ${offset}`;
}

function listPage(deps: BaselineDeps, size: number, offset: number) {
  return Promise.all([pageRows(deps, size, offset), deps.sql<{ count: string }[]>`select count(*) from "member"`]);
}

function memberListBaseline(deps: BaselineDeps): BaselineHandler {
  return async (request, reply) => {
    const session = await resolveSession(deps, request);
    if (!session) return reply.code(401).send({ code: 'UNAUTHENTICATED' });
    if (session.role !== 'ADMIN') return reply.code(403).send({ code: 'ADMIN_REQUIRED' });
    const query = request.query as { page?: string; size?: string };
    const page = Number(query.page ?? 1);
    const size = Number(query.size ?? PAGE_SIZE);
    const [rows, [counted]] = await listPage(deps, size, (page - 1) * size);
    return { items: rows.map(toAdminMember), page, size, total: Number(counted?.count ?? 0) };
  };
}

function memberListRequest(pageOf: (members: number) => number): BenchRow['request'] {
  return async (setup: RowSetup) => ({
    method: 'GET',
    path: `/api/admin/members?page=${pageOf(setup.size)}&size=${PAGE_SIZE}`,
    headers: await setup.bearer(BENCH_ADMIN.email),
  });
}

export const adminRows: BenchRow[] = [
  {
    key: 'admin.members.first',
    name: 'GET /api/admin/members page 1',
    dataset: membersDataset,
    sizes: FIRST_PAGE_SIZES,
    redis: 'up',
    targets: LIST_TARGETS,
    request: memberListRequest(() => 1),
    baseline: memberListBaseline,
  },
  {
    key: 'admin.members.last',
    name: 'GET /api/admin/members last page',
    dataset: membersDataset,
    sizes: LAST_PAGE_SIZES,
    redis: 'up',
    targets: LIST_TARGETS,
    request: memberListRequest((members) => Math.ceil(members / PAGE_SIZE)),
    baseline: memberListBaseline,
  },
];
