import type postgres from 'postgres';
import type { Dataset } from '../rows/types.js';
import { benchPasswordHash } from './members.js';

/**
 * The board (issue 11 "Performance"): `size` posts on the three boards, written by a fixed crowd of
 * authors, growing from 10,000 to 1,000,000 on the same database. Everything the rows read is seeded the
 * way the api leaves it: posts go in with plain INSERT … SELECT statements, so the per-statement triggers
 * of migrations 0011 and 0014 fill `post_tag`, `board_post_count` and `post.comment_count` themselves
 * (set-based, one pass per batch), and the counters are right by construction.
 *
 * What the bench member sees stays a real member's board at every size:
 * - posts come every {@link POST_INTERVAL_SECONDS} seconds up to now, so the last day holds a few hot
 *   candidates (one post in {@link HOT_EVERY} has 50 up votes or more) and page 1 is today's;
 * - one notice per board (written by the admin), pinned on top;
 * - tags from the tag groups shown on the post's board ({@link TAG_GROUPS}), {@link LIST_TAG} on one post in four;
 * - the member has voted on the newest posts, the hot ones and some of the oldest;
 * - one post ({@link DETAIL_TITLE}) has a thread of {@link DETAIL_COMMENTS} comments, a few of them hot,
 *   some spam-blocked, and {@link DETAIL_UP_VOTERS} up-voters; one post in ten has two comments;
 * - a fixed moderation queue (reported posts and comments, spam blocks, a block by reports, a dismissed
 *   case), as an admin reviewing regularly would face it: the report list must not grow with the board.
 */

export const BOARD_MEMBER_EMAIL = 'bench-board@nestegg.test';
export const BOARD_ADMIN_EMAIL = 'bench-board-admin@nestegg.test';
/** The post the detail and comment rows read. */
export const DETAIL_TITLE = '적금 만기 후 어디에 넣을까요? (후기 모음)';
/** The tag of the tag-filtered row: on one post in four. */
export const LIST_TAG = '적금';

const AUTHORS = 2_000;
const BOARDS = ['community', 'saving', 'tips'] as const;
const POST_INTERVAL_SECONDS = 30;
/** One post in HOT_EVERY (a prime, so hot posts fall on every board and tag) has 50 to 199 up votes. */
const HOT_EVERY = 499;
const BATCH = 100_000;
const DETAIL_COMMENTS = 150;
const DETAIL_UP_VOTERS = 60;
/** How many of the newest (and, once, the oldest) posts the bench member has voted on some of. */
const VOTED_SPAN = 300;

/** Tag groups: shown on every board (no boards) or on the boards listed. */
const TAG_GROUPS: { name: string; boards: string[]; tags: string[] }[] = [
  { name: '재테크', boards: [], tags: ['적금', '예금', '주식', 'ETF', '연금'] },
  { name: '생활', boards: ['community', 'tips'], tags: ['절약', '살림', '할인'] },
  { name: '모임', boards: ['community'], tags: ['잡담', '질문'] },
];

const TITLES = [
  '이번 달 가계부 결산',
  '비상금 얼마나 모으세요?',
  '청년도약계좌 가입 후기',
  '고정비 줄이는 방법 공유',
  '신용카드 혜택 비교해봤어요',
  '월급날 루틴',
  '배당주 포트폴리오 점검',
  '전세 대출 갈아타기',
];

async function idOf(sql: postgres.Sql, email: string): Promise<number | null> {
  const [row] = await sql<{ id: number }[]>`select id from member where email = ${email}`;
  return row?.id ?? null;
}

async function postCount(sql: postgres.Sql): Promise<number> {
  const [row] = await sql<{ count: number }[]>`select count(*)::int as count from post`;
  return row?.count ?? 0;
}

/**
 * The member and the admin (who log in), then the authors: one in five with a provider picture, one in
 * seven with their own.
 */
async function insertMembers(sql: postgres.Sql): Promise<void> {
  const hash = await benchPasswordHash();
  await sql`
    insert into member (email, email_verified, password_hash, display_name, role, provider, created_at)
    values (${BOARD_MEMBER_EMAIL}, true, ${hash}, '가계부 요정', 'USER', 'LOCAL', now() - interval '400 days'),
      (${BOARD_ADMIN_EMAIL}, true, ${hash}, '운영자', 'ADMIN', 'LOCAL', now() - interval '900 days')`;
  // The picture's hash (the avatar URL's version) is set by the member trigger.
  await sql`
    insert into member (email, email_verified, password_hash, display_name, provider, idpone_id, idpone_picture,
      profile_image, created_at)
    select 'board-author-' || g || '@bench.nestegg.test', true,
      case when g % 5 = 0 then null else ${hash} end,
      '작성자 ' || g,
      (case when g % 5 = 0 then 'IDPONE' else 'LOCAL' end)::auth_provider,
      case when g % 5 = 0 then 'idpone-board-' || g end,
      case when g % 5 = 0 then 'https://idpone.example/picture/' || g end,
      case when g % 7 = 0 then 'data:image/png;base64,' || encode(sha256(g::text::bytea), 'base64') end,
      now() - interval '800 days' + make_interval(mins => g)
    from generate_series(1, ${AUTHORS}) as g`;
}

async function insertTagGroups(sql: postgres.Sql): Promise<void> {
  const groups = TAG_GROUPS.map((group, order) => ({ ...group, sort_order: order }));
  await sql`
    with input as (
      select * from jsonb_to_recordset(${sql.json(groups)}) as g(name text, boards text[], tags text[], sort_order int)
    ), groups as (
      insert into tag_category (name, sort_order, boards)
      select name, sort_order, boards::board_category[] from input returning id, name
    )
    insert into board_tag (tag_category_id, name, sort_order)
    select groups.id, t.name, t.ordinality - 1
      from input join groups using (name), unnest(input.tags) with ordinality as t(name)`;
}

/**
 * Posts `from`..`to` of a board of `size` posts (post `size` written now, each one POST_INTERVAL_SECONDS
 * before the next), in one statement; then two comments on one post in ten of them. Tags come from the
 * groups the post's board shows.
 */
async function insertPosts(sql: postgres.Sql, authorIds: number[], from: number, to: number, size: number) {
  const [before] = await sql<{ max: number | null }[]>`select max(id) as max from post`;
  await sql`
    insert into post (member_id, category, title, body, tags, up_count, down_count, created_at, updated_at)
    select (${sql.array(authorIds)}::int[])[1 + ((g % ${authorIds.length}) * 7919) % ${authorIds.length}],
      (${sql.array([...BOARDS])}::text[])[1 + g % 3]::board_category,
      (${sql.array(TITLES)}::text[])[1 + g % ${TITLES.length}] || ' #' || g,
      '지난달보다 지출이 ' || (g % 40) || '% 줄었어요. 식비는 장보기 목록으로, 교통비는 정기권으로 아꼈고 '
        || '남은 돈은 자동이체로 적금에 넣었습니다. 다들 어떻게 관리하시나요? (' || g || ')',
      case g % 8
        when 1 then '{적금}'::text[]
        when 2 then '{주식,ETF}'
        when 3 then '{연금}'
        when 4 then (array['{잡담}', '{예금}', '{절약}'])[1 + g % 3]::text[]
        when 5 then '{적금,예금}'
        when 6 then (array['{질문,절약}', '{ETF}', '{할인,절약}'])[1 + g % 3]::text[]
        else '{}'
      end,
      case when g % ${HOT_EVERY} = 0 then 50 + (g * 37) % 150 else ((g % 30) * 7919) % 30 end,
      (g * 31) % 5,
      now() - make_interval(secs => (${size} - g) * ${POST_INTERVAL_SECONDS}),
      now() - make_interval(secs => (${size} - g) * ${POST_INTERVAL_SECONDS})
    from generate_series(${from}::int, ${to}::int) as g`;
  // One recorded up vote on most posts (the rest of up_count is older votes): the vote tables the lists
  // join are a real board's size, not just the bench member's.
  await sql`
    insert into post_vote (member_id, post_id, direction, created_at)
    select (${sql.array(authorIds)}::int[])[1 + (p.id * 13 + 101) % ${authorIds.length}], p.id, 'UP',
      p.created_at + interval '1 hour'
    from post p where p.id > ${before?.max ?? 0} and p.up_count > 0`;
  // The comment trigger adds them to each post's comment_count.
  await sql`
    insert into comment (post_id, member_id, body, up_count, down_count, created_at, updated_at)
    select p.id, (${sql.array(authorIds)}::int[])[1 + (p.id * 11 + k) % ${authorIds.length}],
      case k when 1 then '저도 같은 고민이었는데 도움이 됐어요.' else '자동이체 날짜를 월급날로 맞추면 편해요.' end,
      (p.id + k) % 12, k % 2, p.created_at + make_interval(mins => 7 * k), p.created_at + make_interval(mins => 7 * k)
    from post p, generate_series(1, 2) as k
    where p.id > ${before?.max ?? 0} and p.id % 10 = 3`;
}

/** Older posts move back as the board grows, so the newest post is always written now. */
async function shiftBack(sql: postgres.Sql, posts: number) {
  await sql`
    update post set created_at = created_at - make_interval(secs => ${posts * POST_INTERVAL_SECONDS}),
      updated_at = updated_at - make_interval(secs => ${posts * POST_INTERVAL_SECONDS})`;
}

async function growPosts(sql: postgres.Sql, authorIds: number[], from: number, size: number) {
  for (let first = from; first <= size; first += BATCH) {
    await insertPosts(sql, authorIds, first, Math.min(size, first + BATCH - 1), size);
  }
}

/** The newest post of each board becomes its notice, by the admin (the update trigger moves post_tag along). */
async function pinNotices(sql: postgres.Sql, adminId: number) {
  await sql`
    update post set notice = true, member_id = ${adminId}, title = '[공지] ' || category || ' 게시판 이용 규칙'
     where id in (select max(id) from post group by category)`;
}

/**
 * The detail post: a long body, DETAIL_UP_VOTERS up-voters (the bench member the latest) and a few down,
 * and a thread of DETAIL_COMMENTS comments over the last 50 hours (five of the last day are hot, some are
 * spam-blocked), with the bench member's votes on some of them.
 */
async function seedDetailPost(sql: postgres.Sql, authorIds: number[], memberId: number) {
  const [detail] = await sql<{ id: number }[]>`
    update post set title = ${DETAIL_TITLE}, tags = '{적금,예금}',
      body = repeat('적금이 만기되어서 다음 계획을 세우는 중입니다. 예금, ETF, 파킹통장 중에 고민이에요. ', 40)
     where id = (select id from post order by id offset 4 limit 1) returning id`;
  const postId = detail!.id;
  await sql`delete from post_vote where post_id = ${postId}`;
  await sql`
    with voted as (
      insert into post_vote (member_id, post_id, direction, created_at)
      select (${sql.array(authorIds)}::int[])[v * 13], ${postId}::int,
        (case when v <= ${DETAIL_UP_VOTERS} then 'UP' else 'DOWN' end)::vote_direction,
        now() - make_interval(mins => 37 * v)
      from generate_series(1, ${DETAIL_UP_VOTERS + 4}) as v
      union all
      select ${memberId}::int, ${postId}::int, 'UP', now() - interval '5 minutes'
      returning direction
    )
    update post set up_count = (select count(*) from voted where direction = 'UP'),
      down_count = (select count(*) from voted where direction = 'DOWN')
     where id = ${postId}`;
  await sql`
    insert into comment (post_id, member_id, body, blocked, block_reason, up_count, down_count, created_at, updated_at)
    select ${postId}, (${sql.array(authorIds)}::int[])[1 + (k * 17) % ${authorIds.length}],
      case when k % 37 = 5 then '초고수익 보장 리딩방 입장 문의 주세요 ' || k
        else k || '번째 댓글: 저는 반은 예금, 반은 ETF 적립식으로 나눴어요.' end,
      k % 37 = 5, case when k % 37 = 5 then 'SPAM' end,
      case when k > 100 and k % 10 = 5 then 60 + k else (k * 13) % 25 end, k % 3,
      now() - make_interval(mins => (${DETAIL_COMMENTS} - k) * 20),
      now() - make_interval(mins => (${DETAIL_COMMENTS} - k) * 20)
    from generate_series(1, ${DETAIL_COMMENTS}) as k`;
  await sql`
    with voted as (
      insert into comment_vote (member_id, comment_id, direction)
      select ${memberId}, c.id, (case when c.id % 5 = 0 then 'DOWN' else 'UP' end)::vote_direction
        from comment c where c.post_id = ${postId} and c.id % 4 = 0 and not c.blocked
      returning comment_id, direction
    )
    update comment c set up_count = c.up_count + (v.direction = 'UP')::int,
      down_count = c.down_count + (v.direction = 'DOWN')::int
      from voted v where c.id = v.comment_id`;
}

/**
 * The moderation queue, on posts and comments of the first seed: reported posts (1 to 4 open reports),
 * spam-blocked posts and comments, posts blocked by five counted reports, reported comments, and a few
 * dismissed cases (closed reports, nothing open). `report_count` is then what the open reports add up to.
 */
async function seedModeration(sql: postgres.Sql, authorIds: number[], adminId: number, lastId: number) {
  const authors = sql.array(authorIds);
  const n = authorIds.length;
  await sql`
    update post set blocked = true, block_reason = 'SPAM', title = '고수익 보장 재테크 비법 공개 ' || id
     where id <= ${lastId} and id % 400 = 123 and not notice`;
  // Reporters are other authors than the target's: the author's place in the list plus 17 j.
  await sql`
    insert into report (member_id, target_type, target_id, reason, counted, snapshot_title, snapshot_body, created_at)
    select (${authors}::int[])[1 + (array_position(${authors}::int[], p.member_id) + 17 * j - 1) % ${n}], 'POST', p.id,
      case when j % 3 = 0 then null else (array['광고성 글입니다', '욕설이 있어요', '도배', '허위 정보'])[1 + (p.id + j) % 4] end,
      p.id % 2000 = 999 or j % 2 = 1, p.title, p.body, now() - make_interval(mins => 3 * j + p.id % 600)
    from post p, generate_series(1, 5) as j
    where p.id <= ${lastId} and not p.notice
      and ((p.id % 250 = 77 and j <= 1 + p.id % 4) or p.id % 2000 = 999 or (p.id % 1000 = 555 and j <= 2))`;
  await sql`
    with blocked as (
      update post set blocked = true, block_reason = 'REPORTS' where id <= ${lastId} and id % 2000 = 999 returning id
    )
    insert into moderation_event (target_type, target_id, action, reason, created_at)
    select 'POST', id, 'BLOCKED', 'REPORTS', now() - interval '1 hour' from blocked`;
  await sql`
    with dismissed as (
      insert into moderation_event (target_type, target_id, action, actor_id, created_at)
      select 'POST', id, 'DISMISSED', ${adminId}, now() - interval '30 minutes' from post
       where id <= ${lastId} and id % 1000 = 555
      returning id, target_id
    )
    update report r set resolution_id = d.id from dismissed d where r.target_type = 'POST' and r.target_id = d.target_id`;
  await sql`
    update comment set blocked = true, block_reason = 'SPAM', body = '무료 리딩방 초대 ' || id
     where post_id in (select id from post where id <= ${lastId}) and id % 97 = 41`;
  await sql`
    insert into report (member_id, target_type, target_id, reason, counted, snapshot_body, created_at)
    select (${authors}::int[])[1 + (array_position(${authors}::int[], c.member_id) + 17 * j - 1) % ${n}], 'COMMENT', c.id,
      (array['비방', '광고', null])[1 + (c.id + j) % 3], j % 2 = 1, c.body, now() - make_interval(mins => 5 * j + c.id % 300)
    from comment c, generate_series(1, 3) as j
    where c.post_id in (select id from post where id <= ${lastId}) and c.id % 97 = 11 and j <= 1 + c.id % 3`;
  for (const table of ['post', 'comment'] as const) {
    const type = table === 'post' ? 'POST' : 'COMMENT';
    await sql`
      update ${sql(table)} t set report_count = r.open
        from (select target_id, count(*)::int as open from report
               where target_type = ${type}::report_target_type and resolution_id is null group by target_id) r
       where t.id = r.target_id`;
  }
}

/**
 * The bench member's votes: some of the `VOTED_SPAN` newest posts (and, with `oldest`, of the oldest), and
 * every hot candidate of the last day, up or down; each post's counters take the vote.
 */
async function voteAsMember(sql: postgres.Sql, memberId: number, oldest: boolean) {
  const span = oldest
    ? sql`(select id from post order by id asc limit ${VOTED_SPAN})`
    : sql`(select id from post order by id desc limit ${VOTED_SPAN})`;
  await sql`
    with candidates as (
      select id from ${span} s where id % 5 = 1 or id % 9 = 2
      union
      select id from post where up_count >= 50 and created_at > now() - interval '24 hours'
    ), voted as (
      insert into post_vote (member_id, post_id, direction, created_at)
      select ${memberId}, c.id, (case when c.id % 5 <> 1 and c.id % 9 = 2 then 'DOWN' else 'UP' end)::vote_direction,
        now() - interval '10 minutes'
      from candidates c join post p on p.id = c.id
      where not p.blocked
      on conflict do nothing
      returning post_id, direction
    )
    update post p set up_count = p.up_count + (v.direction = 'UP')::int,
      down_count = p.down_count + (v.direction = 'DOWN')::int
      from voted v where p.id = v.post_id`;
}

async function firstSeed(sql: postgres.Sql, size: number) {
  await insertMembers(sql);
  await insertTagGroups(sql);
  const authorIds = await authorIdsOf(sql);
  const memberId = (await idOf(sql, BOARD_MEMBER_EMAIL))!;
  const adminId = (await idOf(sql, BOARD_ADMIN_EMAIL))!;
  await growPosts(sql, authorIds, 1, size);
  const [last] = await sql<{ max: number }[]>`select max(id) as max from post`;
  await pinNotices(sql, adminId);
  await seedDetailPost(sql, authorIds, memberId);
  await seedModeration(sql, authorIds, adminId, last!.max);
  await voteAsMember(sql, memberId, true);
}

async function authorIdsOf(sql: postgres.Sql): Promise<number[]> {
  const rows = await sql<{ id: number }[]>`
    select id from member where email like 'board-author-%@bench.nestegg.test' order by id`;
  return rows.map((row) => row.id);
}

export const boardDataset: Dataset = {
  name: 'board',
  unit: 'posts',
  async seed(sql, size) {
    const count = await postCount(sql);
    if (count === 0) {
      await firstSeed(sql, size);
    } else if (size > count) {
      await shiftBack(sql, size - count);
      await growPosts(sql, await authorIdsOf(sql), count + 1, size);
    }
    await voteAsMember(sql, (await idOf(sql, BOARD_MEMBER_EMAIL))!, false);
    // Measure settled tables: statistics current and the visibility map set (the lists read indexes only),
    // and the seed's writes flushed, so the checkpointer does not write them out under the measured load.
    await sql.unsafe(
      'vacuum analyze post, post_tag, board_post_count, comment, post_vote, comment_vote, report, moderation_event, member',
    );
    await sql.unsafe('checkpoint');
  },
};
