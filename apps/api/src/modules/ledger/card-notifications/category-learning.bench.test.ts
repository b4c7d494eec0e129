/**
 * Scratch measurement of the category learning at 200,000 entries of one member (run with
 * `CARD_LEARNING_BENCH=1`; skipped otherwise). Compares the plain scan of the member's entries with the
 * lookup in the learned table, for a ledger of few distinct memos and one of many, and what the learning
 * triggers add to entry writes.
 */
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { test } from '../../../test/fixtures.js';
import { learnedCategory, learningQuery } from '../kernel/category-learning.js';

const ENTRIES = 200_000;
const RUNS = 30;
const MERCHANTS = [
  '스타벅스',
  'GS25',
  '쿠팡',
  '배달의민족',
  '카카오T',
  '이마트',
  'CU',
  '올리브영',
  '교보문고',
  '다이소',
];
const CATEGORIES = ['카페', '편의점', '쇼핑', '배달', '택시', '생활', '도서', '외식'];
/** A Postgres array literal (drizzle would expand a JS array into a row). */
const arrayLiteral = (values: readonly string[]) => `{${values.join(',')}}`;

/** `distinct` memos over ENTRIES entries: a merchant, a branch number; every tenth an income, one in fifty pending. */
async function seed(app: FastifyInstance, memberId: number, distinct: number) {
  await app.db.execute(sql`
    insert into category (member_id, name, type)
    select ${memberId}, c, 'EXPENSE' from unnest(${arrayLiteral(CATEGORIES)}::text[]) c`);
  await app.db.execute(sql`
    insert into account_entry (member_id, type, amount, entry_date, memo, category, pending)
    select ${memberId}, (case when g % 10 = 0 then 'INCOME' else 'EXPENSE' end)::ledger_type, 1000,
      date '2030-01-01' - (g / 60), (${arrayLiteral(MERCHANTS)}::text[])[1 + g % 10] || ' ' || ((g / 10) % ${distinct / 10}) || '호점',
      (${arrayLiteral(CATEGORIES)}::text[])[1 + (g / 10) % 8], g % 50 = 0
    from generate_series(1, ${ENTRIES}::int) g`);
  await app.db.execute(sql`analyze account_entry; analyze merchant_category`);
}

/** The learning as a plain scan of the member's confirmed entries (what a trigger-free design costs). */
function plainScan(app: FastifyInstance, memberId: number, memo: string) {
  return app.db.execute(sql`
    select category from account_entry
     where member_id = ${memberId} and type = 'EXPENSE' and not pending and category is not null
       and memo is not null and (strpos(memo, ${memo}) > 0 or strpos(${memo}, memo) > 0)
     group by category order by count(*) desc, category limit 1`);
}

async function medianMs(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let index = 0; index < RUNS; index += 1) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
}

async function insertMs(app: FastifyInstance, memberId: number, rows: number) {
  const started = performance.now();
  for (let index = 0; index < rows; index += 1) {
    await app.db.execute(sql`
      insert into account_entry (member_id, type, amount, entry_date, memo, category)
      values (${memberId}, 'EXPENSE', 1000, '2030-01-01', ${`가게 ${index}`}, '카페')`);
  }
  return (performance.now() - started) / rows;
}

describe.skipIf(!process.env.CARD_LEARNING_BENCH)('category learning at 200,000 entries', () => {
  test('learned table vs plain scan', { timeout: 900_000 }, async ({ app, premium, free, admin }) => {
    const memos = ['GS25 3호점', 'GS25 역삼 17호점', '쿠팡', '교보문고 광화문점', '스타'];
    for (const [caller, distinct] of [
      [premium, 200],
      [free, 40_000],
    ] as const) {
      const seeding = performance.now();
      await seed(app, caller.id, distinct);
      const seededMs = performance.now() - seeding;
      const [learned] = (await app.db.execute(
        sql`select count(*)::int as n from merchant_category where member_id = ${caller.id}`,
      )) as unknown as { n: number }[];
      for (const memo of memos) {
        const scan = await medianMs(() => plainScan(app, caller.id, memo));
        const table = await medianMs(() => learnedCategory(app.db, caller.id, 'EXPENSE', memo));
        console.info(
          `distinct memos ${distinct} (learned rows ${learned!.n}), memo "${memo}": plain scan ${scan.toFixed(2)} ms, learned table ${table.toFixed(2)} ms`,
        );
      }
      console.info(`seeding ${ENTRIES} entries with the triggers: ${Math.round(seededMs)} ms`);
      if (process.env.CARD_LEARNING_EXPLAIN) {
        for (const memo of memos) {
          const explained = sql`explain (analyze, buffers) ${learningQuery(caller.id, 'EXPENSE', memo)}`;
          const plan = (await app.db.execute(explained)) as unknown as Record<string, string>[];
          console.info(plan.map((row) => Object.values(row)[0]).join('\n'));
        }
      }
    }
    await app.db.execute(sql`alter table account_entry disable trigger account_entry_merchant_category_insert`);
    const bulk = performance.now();
    await seed(app, admin.id, 40_000);
    console.info(`seeding ${ENTRIES} entries without the learning trigger: ${Math.round(performance.now() - bulk)} ms`);
    await app.db.execute(sql`alter table account_entry enable trigger account_entry_merchant_category_insert`);
    const withTrigger = await insertMs(app, premium.id, 500);
    await app.db.execute(sql`alter table account_entry disable trigger account_entry_merchant_category_insert`);
    const withoutTrigger = await insertMs(app, premium.id, 500);
    await app.db.execute(sql`alter table account_entry enable trigger account_entry_merchant_category_insert`);
    console.info(
      `single insert: ${withTrigger.toFixed(3)} ms with the learning trigger, ${withoutTrigger.toFixed(3)} ms without`,
    );
    expect(await learnedCategory(app.db, premium.id, 'EXPENSE', 'GS25 3호점')).not.toBeNull();
  });
});
