/**
 * docs/scaling.md's plan for PostgreSQL on many machines (Citus distributed by member, decision R8), checked
 * where this repository can check it: every table has a place in the plan, a member-owned table's keys and its
 * foreign keys to other member-owned tables lead with `member_id` (read from a migrated database's catalog),
 * reference tables point only at reference tables, outside the board no query joins a member-owned table on
 * anything but its member, and the board joins no member-owned table (read from the api's source).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as schema from '@nestegg/db';
import { useTestDatabase } from '@nestegg/testing';
import { getTableName } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Where each table goes under Citus (docs/scaling.md, "Tables"). */
type Placement =
  /** Distributed by `member_id`, all in one co-location group: a member's rows live on one node. */
  | 'by member'
  /** The board: read across members by design, kept whole on the coordinator (a Citus local table). */
  | 'board'
  /** Read everywhere, written rarely: a copy on every node (`member` among them, once its points move out). */
  | 'reference'
  /** Kept on the coordinator: one-row counters, the billing inbox, the cache-drop outbox. */
  | 'coordinator';

const placement: Record<string, Placement> = {
  member: 'reference',
  account: 'by member',
  account_entry: 'by member',
  auth_session: 'by member',
  budget: 'by member',
  budget_income: 'by member',
  budget_onetime: 'by member',
  card_cancellation: 'by member',
  category: 'by member',
  entry_tag: 'by member',
  iap_purchase: 'by member',
  idempotency_key: 'by member',
  investment_holding: 'by member',
  investment_trade: 'by member',
  ledger_change: 'by member',
  ledger_volume: 'by member',
  member_change_counter: 'by member',
  merchant_category: 'by member',
  point_history: 'by member',
  quick_entry: 'by member',
  recurring: 'by member',
  statement_import: 'by member',
  statement_import_profile: 'by member',
  statement_import_row: 'by member',
  tag: 'by member',
  wallet_loan_history: 'by member',
  wallet_value_history: 'by member',
  post: 'board',
  post_tag: 'board',
  post_vote: 'board',
  post_image: 'board',
  comment: 'board',
  comment_vote: 'board',
  comment_image: 'board',
  board_image: 'board',
  board_post_count: 'board',
  report: 'board',
  moderation_event: 'board',
  app_setting: 'reference',
  board_tag: 'reference',
  default_category: 'reference',
  fx_rate: 'reference',
  spam_keyword: 'reference',
  stock_quote: 'reference',
  tag_category: 'reference',
  member_count: 'coordinator',
  session_cache_invalidation: 'coordinator',
  store_cancellation: 'coordinator',
  store_notification: 'coordinator',
};

/**
 * Keys of member-owned tables that do not lead with `member_id` today, each with the change docs/scaling.md
 * plans before the table can be distributed. A key fixed, or a new one that does not lead, fails the test.
 */
const keysToChange: Record<string, string> = {
  auth_session_pkey: 'primary key (member_id, id)',
  auth_session_token_hash_uq: 'unique (member_id, token_hash); the bearer token carries the member id',
  iap_purchase_pkey: 'primary key (member_id, id)',
  iap_purchase_store_token_uq: 'a purchase_token_owner table distributed by (store, purchase_token)',
  point_history_pkey: 'primary key (member_id, id), as 0015 did for the ledger',
};

const memberOwned = (table: string) => placement[table] === 'by member';

interface Key {
  table: string;
  name: string;
  kind: 'p' | 'u' | 'f' | 'i';
  columns: string[];
  referencedTable: string | null;
  referencedColumns: string[];
}

async function catalogKeys(url: string): Promise<{ tables: string[]; keys: Key[]; memberIdTables: string[] }> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const tables = await sql<{ name: string }[]>`
      select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p') order by 1`;
    const memberIdTables = await sql<{ name: string }[]>`
      select c.relname as name from pg_attribute a join pg_class c on c.oid = a.attrelid
      join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p') and a.attname = 'member_id' and not a.attisdropped`;
    const constraints = await sql<Key[]>`
      select t.relname as "table", k.conname as name, k.contype as kind,
        array(select a.attname::text from unnest(k.conkey) with ordinality u(n, i)
              join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.n order by u.i) as columns,
        r.relname as "referencedTable",
        array(select a.attname::text from unnest(k.confkey) with ordinality u(n, i)
              join pg_attribute a on a.attrelid = k.confrelid and a.attnum = u.n order by u.i) as "referencedColumns"
      from pg_constraint k join pg_class t on t.oid = k.conrelid join pg_namespace n on n.oid = t.relnamespace
      left join pg_class r on r.oid = k.confrelid
      where n.nspname = 'public' and k.contype in ('p', 'u', 'f')`;
    // Unique indexes that back no constraint (expressions, partial indexes): the first key column, or none.
    const indexes = await sql<Key[]>`
      select t.relname as "table", c.relname as name, 'i' as kind,
        array(select coalesce(a.attname::text, '(expression)') from unnest(i.indkey::int2[]) with ordinality u(n, o)
              left join pg_attribute a on a.attrelid = i.indrelid and a.attnum = u.n order by u.o) as columns,
        null as "referencedTable", '{}'::text[] as "referencedColumns"
      from pg_index i join pg_class c on c.oid = i.indexrelid join pg_class t on t.oid = i.indrelid
      join pg_namespace n on n.oid = t.relnamespace
      where n.nspname = 'public' and i.indisunique
        and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid)`;
    return {
      tables: tables.map(({ name }) => name),
      keys: [...constraints, ...indexes],
      memberIdTables: memberIdTables.map(({ name }) => name),
    };
  } finally {
    await sql.end();
  }
}

/** Keys of member-owned tables that do not lead with member_id (foreign keys: to another member-owned table). */
function keysNotLeadingWithMember(keys: Key[]): string[] {
  return keys
    .filter(({ table }) => memberOwned(table))
    .filter((key) => {
      if (key.kind !== 'f') return key.columns[0] !== 'member_id';
      const target = key.referencedTable ?? '';
      if (target === 'member') return key.columns.join() !== 'member_id';
      if (!memberOwned(target)) return false;
      return key.columns[0] !== 'member_id' || key.referencedColumns[0] !== 'member_id';
    })
    .map(({ name }) => name)
    .sort();
}

describe('the Citus plan against the migrated schema (docs/scaling.md, decision R8)', () => {
  const database = useTestDatabase();

  it('places every table, and the member-owned ones are exactly the tables with a member_id', async () => {
    const { tables, memberIdTables } = await catalogKeys(database.current.url);
    expect(tables).toEqual(Object.keys(placement).sort());
    const drizzleTables = Object.values(schema as Record<string, unknown>)
      .filter((value): value is PgTable => value instanceof PgTable)
      .map((table) => getTableName(table));
    expect(drizzleTables.sort()).toEqual(tables);
    // The board's rows carry their author's member_id too; everything else with one is distributed by it.
    const withMemberId = memberIdTables.filter((table) => placement[table] !== 'board').sort();
    expect(withMemberId).toEqual(tables.filter(memberOwned));
  });

  it('keys of member-owned tables lead with member_id, but for the ones listed with their change', async () => {
    const { keys } = await catalogKeys(database.current.url);
    expect(keysNotLeadingWithMember(keys)).toEqual(Object.keys(keysToChange).sort());
  });

  it('the check finds a key that does not lead with member_id', () => {
    const wrong: Key[] = [
      { table: 'tag', name: 'tag_name_uq', kind: 'u', columns: ['name'], referencedTable: null, referencedColumns: [] },
      {
        table: 'entry_tag',
        name: 'entry_tag_tag_fk',
        kind: 'f',
        columns: ['tag_id'],
        referencedTable: 'tag',
        referencedColumns: ['id'],
      },
      {
        table: 'account',
        name: 'account_member_fk',
        kind: 'f',
        columns: ['member_id'],
        referencedTable: 'member',
        referencedColumns: ['id'],
      },
    ];
    expect(keysNotLeadingWithMember(wrong)).toEqual(['entry_tag_tag_fk', 'tag_name_uq']);
  });

  it('reference tables point only at reference tables (Citus refuses a reference to a distributed table)', async () => {
    const { keys } = await catalogKeys(database.current.url);
    const outward = keys.filter(
      (key) =>
        key.kind === 'f' &&
        placement[key.table] === 'reference' &&
        placement[key.referencedTable ?? ''] !== 'reference',
    );
    expect(outward.map(({ name }) => name)).toEqual([]);
  });

  it('docs/scaling.md names every table with its placement', () => {
    const doc = readFileSync(fileURLToPath(new URL('../../../docs/scaling.md', import.meta.url)), 'utf8');
    const rows = new Map<string, string>();
    for (const match of doc.matchAll(/^\| ([^|]+) \| (by member|board|reference|coordinator) \|/gm)) {
      for (const name of match[1]!.matchAll(/`([a-z_]+)`/g)) rows.set(name[1]!, match[2]!);
    }
    expect(Object.fromEntries([...rows].sort())).toEqual(
      Object.fromEntries(Object.entries(placement).sort(([a], [b]) => a.localeCompare(b))),
    );
  });
});

/** The board and its moderation: they read several members' rows by design (posts, comments, votes, reports). */
const BOARD_MODULES = [
  'members/avatars',
  'board/images',
  'board/comments',
  'board/moderation',
  'board/posts',
  'board/votes',
];

/** Every module folder, `<area>/<module>` (decision F13). */
const moduleFolders = (modules: string) =>
  readdirSync(modules)
    .filter((area) => statSync(join(modules, area)).isDirectory())
    .flatMap((area) =>
      readdirSync(join(modules, area))
        .filter((module) => statSync(join(modules, area, module)).isDirectory())
        .map((module) => `${area}/${module}`),
    );

const apiSource = fileURLToPath(new URL('.', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'test' ? [] : sourceFiles(path);
    return entry.endsWith('.ts') && !entry.endsWith('.test.ts') ? [path] : [];
  });
}

const tableOfExport = new Map(
  Object.entries(schema as Record<string, unknown>)
    .filter((entry): entry is [string, PgTable] => entry[1] instanceof PgTable)
    .map(([name, table]) => [name, getTableName(table)]),
);

interface Join {
  where: string;
  table: string;
  condition: string;
}

/** A join's own condition names a member: `member_id` in SQL, `memberId` in drizzle. */
const namesMember = (condition: string) => /\bmember_?[iI]d\b|\.memberId\b/.test(condition);

/** From `(` at `start`, the text up to its matching `)`. */
function balanced(text: string, start: number): string {
  let depth = 0;
  for (let index = start; index < text.length; index += 1) {
    if (text[index] === '(') depth += 1;
    if (text[index] === ')' && --depth === 0) return text.slice(start, index + 1);
  }
  return text.slice(start);
}

const SQL_JOIN = /\bjoin\s+(lateral\s+)?(?:"?([a-z_]+)"?|\$\{\s*([A-Za-z_]+)\s*\}|(?=\())/gi;
const CONDITION_END = /\b(join|where|group|order|limit|window|union|returning|select)\b|\)/i;

/** Joins in SQL text: `join t a on …` up to the next clause; `join lateral (…)`: the whole subquery. */
function sqlJoins(text: string, aliases: Map<string, string>, where: string): Join[] {
  return [...text.matchAll(SQL_JOIN)].map((match) => {
    const after = text.slice(match.index! + match[0].length);
    const named = match[2] ?? aliases.get(match[3] ?? '') ?? match[3];
    const table = named ? (tableOfExport.get(named) ?? named) : 'subquery';
    if (match[1] || !named) return { where, table, condition: balanced(after, after.indexOf('(')) };
    const end = after.search(CONDITION_END);
    return { where, table, condition: end < 0 ? after : after.slice(0, end) };
  });
}

/** Every join the api's source makes: drizzle's `innerJoin(t, on)` and friends, and joins in `sql` templates. */
function joinsIn(file: string, text = readFileSync(file, 'utf8')): Join[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const aliases = new Map<string, string>();
  const helpers = new Map<string, string>();
  const joins: Join[] = [];
  const where = (node: ts.Node) =>
    `${relative(apiSource, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'alias' &&
      ts.isVariableDeclaration(node.parent) &&
      ts.isIdentifier(node.parent.name)
    ) {
      aliases.set(node.parent.name.text, node.arguments[0]?.getText() ?? '');
    }
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      /^(inner|left|right|full)Join$/.test(node.expression.name.text)
    ) {
      const target = node.arguments[0]?.getText() ?? '';
      const table = tableOfExport.get(aliases.get(target) ?? target) ?? target;
      joins.push({ where: where(node), table, condition: node.arguments[1]?.getText() ?? '' });
    }
    if (ts.isTaggedTemplateExpression(node)) joins.push(...sqlJoins(node.template.getText(), aliases, where(node)));
    if (ts.isFunctionDeclaration(node) && node.name) helpers.set(node.name.text, node.getText());
    ts.forEachChild(node, visit);
  };
  visit(source);
  // A condition built by a helper of the same file (`conditionsOn(x, shape)`) is read with the helper's body.
  const expanded = (condition: string) =>
    [
      condition,
      ...[...helpers].filter(([name]) => new RegExp(`\\b${name}\\(`).test(condition)).map(([, body]) => body),
    ].join('\n');
  return joins.map((found) => ({ ...found, condition: expanded(found.condition) }));
}

/** Joins onto a member-owned table, `member` or a lateral subquery whose condition does not name a member. */
const crossMemberJoins = (joins: Join[]) =>
  joins.filter(
    ({ table, condition }) =>
      (memberOwned(table) || table === 'member' || table === 'subquery') && !namesMember(condition),
  );

describe('no query joins two members’ rows outside the board (docs/scaling.md, decision R8)', () => {
  const modules = join(apiSource, 'modules');
  const outsideBoard = [
    ...moduleFolders(modules)
      .filter((folder) => !BOARD_MODULES.includes(folder))
      .flatMap((folder) => sourceFiles(join(modules, folder))),
    ...sourceFiles(join(apiSource, 'lib')),
    ...sourceFiles(join(apiSource, 'plugins')),
  ];

  it('every join onto a member-owned table outside the board matches on member_id', () => {
    const joins = outsideBoard.flatMap((file) => joinsIn(file));
    // The scan sees the ledger's joins (a broken pattern would find none and pass).
    expect(joins.filter(({ table }) => memberOwned(table)).length).toBeGreaterThan(15);
    expect(crossMemberJoins(joins)).toEqual([]);
  });

  it('the board joins board, reference and coordinator tables only, never a member-owned one', () => {
    const board = BOARD_MODULES.flatMap((module) => sourceFiles(join(modules, module)));
    const joins = board.flatMap((file) => joinsIn(file));
    expect(joins.length).toBeGreaterThan(10);
    expect(joins.filter(({ table }) => memberOwned(table))).toEqual([]);
  });

  it('the scan finds a join that does not match on member_id, in drizzle and in SQL', () => {
    // Joins on id alone (drizzle, SQL, a lateral subquery, a helper without the member) beside scoped ones.
    const file = join(modules, 'ledger', 'entries', 'example.ts');
    const code = readFileSync(fileURLToPath(new URL('./test/scaling/joins-example.txt', import.meta.url)), 'utf8');
    expect(crossMemberJoins(joinsIn(file, code)).map(({ table }) => table)).toEqual([
      'account',
      'account',
      'subquery',
      'subquery',
    ]);
  });
});
