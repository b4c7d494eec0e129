import type { ReportedItem, ReportedItemPage, ReportTargetType } from '@nestegg/contract';
import { comment, type Database, member, post, type RawSelect, rawSelect, report } from '@nestegg/db';
import { type Placeholder, type SQL, sql } from 'drizzle-orm';
import { assertOffsetAllowed, toAuthor } from '../kernel/index.js';

const REASONS_SHOWN = 10;
const EXCERPT_LENGTH = 200;

/** An instant as the contract writes it (`2024-05-01T09:30:00.000Z`), built by Postgres. */
const isoInstant = (instant: SQL) => sql`to_char(${instant} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Every post and comment with open reports or blocked, from the partial indexes on `report_count > 0` and
 * on `blocked`: the cost follows the flagged items, not the board.
 */
const flagged = sql`
  select 'POST'::report_target_type as target_type, p.id as target_id, p.id as post_id, p.member_id as author_id,
         p.report_count, p.blocked, p.block_reason, p.created_at
    from ${post} p where p.report_count > 0 or p.blocked
  union all
  select 'COMMENT'::report_target_type, c.id, c.post_id, c.member_id, c.report_count, c.blocked, c.block_reason,
         c.created_at
    from ${comment} c where c.report_count > 0 or c.blocked`;

/** Most open reports first, then the newest target; `of` names the relation (`f`, `page`). */
const mostReportedFirst = (of: string) =>
  sql.raw(`${of}.report_count desc, ${of}.created_at desc, ${of}.target_type, ${of}.target_id desc`);

type ReportedRow = {
  target_type: ReportTargetType;
  target_id: number;
  post_id: number;
  post_category: ReportedItem['postCategory'];
  title: string;
  excerpt: string;
  author_id: number;
  author_name: string;
  author_picture: string | null;
  author_picture_hash: string | null;
  report_count: number;
  counted_report_count: number;
  reasons: string[];
  blocked: boolean;
  block_reason: string | null;
  created_at: string;
  last_reported_at: string | null;
};

/**
 * The admin's report list: posts and comments together, most open reports first (then newest), with
 * spam-blocked items at 0 reports. Two statements in parallel: the page, whose details (author, post,
 * latest reasons) are read for its rows only, and the count.
 */
export class ReportList {
  /** Built once (decision P27): the page, its size and offset as placeholders, and the count. */
  private readonly pageRows: RawSelect<ReportedRow>;
  private readonly total: RawSelect<{ total: number }>;

  constructor(
    db: Database,
    private readonly publicUrl: string,
  ) {
    this.pageRows = rawSelect(db, pageQuery(sql.placeholder('limit'), sql.placeholder('offset')));
    this.total = rawSelect(db, sql`select count(*)::int as total from (${flagged}) f`);
  }

  async page({ page, size }: { page: number; size: number }): Promise<ReportedItemPage> {
    assertOffsetAllowed(page, size, undefined);
    const [rows, [counted]] = await Promise.all([
      this.pageRows.execute({ limit: size, offset: (page - 1) * size }),
      this.total.execute(),
    ]);
    return {
      items: rows.map((row) => toReportedItem(row, this.publicUrl)),
      page,
      size,
      total: counted?.total ?? 0,
    };
  }
}

/**
 * A comment's body, read per row of the page by its key: as a join, small comment tables were hashed whole
 * for a page of 20 (the report list at 10,000 posts cost more than at 1,000,000, decision BD29).
 */
const commentBody = sql`(select c.body from ${comment} c where page.target_type = 'COMMENT' and c.id = page.target_id)`;

export function pageQuery(limit: number | Placeholder, offset: number | Placeholder): SQL {
  return sql`
    with page as (select * from (${flagged}) f order by ${mostReportedFirst('f')} limit ${limit} offset ${offset})
    select page.target_type, page.target_id, page.post_id, parent.category as post_category, parent.title,
           left(coalesce(${commentBody}, parent.body), ${EXCERPT_LENGTH}) as excerpt,
           m.id as author_id, m.display_name as author_name, m.idpone_picture as author_picture,
           m.profile_image_hash as author_picture_hash,
           page.report_count, coalesce(open.counted, 0) as counted_report_count,
           coalesce(open.reasons, '{}') as reasons, page.blocked, page.block_reason,
           ${isoInstant(sql`page.created_at`)} as created_at, ${isoInstant(sql`open.last_reported_at`)} as last_reported_at
      from page
      join ${post} parent on parent.id = page.post_id
      join ${member} m on m.id = page.author_id
      left join lateral (
        select (array_agg(r.reason order by r.id desc) filter (where r.reason is not null))[1:${REASONS_SHOWN}] as reasons,
               max(r.created_at) as last_reported_at, (count(*) filter (where r.counted))::int as counted
          from ${report} r
         where r.target_type = page.target_type and r.target_id = page.target_id and r.resolution_id is null
      ) open on true
     order by ${mostReportedFirst('page')}`;
}

function toReportedItem(row: ReportedRow, publicUrl: string): ReportedItem {
  return {
    targetType: row.target_type,
    targetId: row.target_id,
    postId: row.post_id,
    postCategory: row.post_category,
    title: row.title,
    excerpt: row.excerpt,
    author: toAuthor(
      {
        id: row.author_id,
        displayName: row.author_name,
        idponePicture: row.author_picture,
        profileImageHash: row.author_picture_hash,
      },
      publicUrl,
    ),
    reportCount: row.report_count,
    countedReportCount: row.counted_report_count,
    reasons: row.reasons,
    blocked: row.blocked,
    blockReason: row.block_reason,
    createdAt: row.created_at,
    lastReportedAt: row.last_reported_at,
  };
}
