import argon2 from 'argon2';
import type postgres from 'postgres';
import { ARGON2_OPTIONS } from '../baseline/passwords.js';
import type { Dataset } from '../rows/types.js';

export const BENCH_PASSWORD = 'bench password 2024';

export interface FixtureAccount {
  email: string;
  displayName: string;
  role: 'USER' | 'ADMIN';
}

/** Accounts the rows log in as; they are the first (oldest) members, so they sit on the deepest page. */
export const BENCH_ADMIN: FixtureAccount = {
  email: 'bench-admin@nestegg.test',
  displayName: 'Bench admin',
  role: 'ADMIN',
};
export const BENCH_MEMBER: FixtureAccount = {
  email: 'bench-member@nestegg.test',
  displayName: 'Bench member',
  role: 'USER',
};
export const BENCH_LOGIN: FixtureAccount = {
  email: 'bench-login@nestegg.test',
  displayName: 'Bench login',
  role: 'USER',
};
const FIXTURE_ACCOUNTS = [BENCH_ADMIN, BENCH_MEMBER, BENCH_LOGIN];

let passwordHash: Promise<string> | undefined;
/** One argon2id hash for every seeded password (hashing a million would take hours). */
export function benchPasswordHash(): Promise<string> {
  passwordHash ??= argon2.hash(BENCH_PASSWORD, ARGON2_OPTIONS);
  return passwordHash;
}

async function memberCount(sql: postgres.Sql): Promise<number> {
  const [row] = await sql<{ count: number }[]>`select count(*)::int as count from member`;
  return row?.count ?? 0;
}

async function insertFixtureAccounts(sql: postgres.Sql, hash: string): Promise<void> {
  for (const account of FIXTURE_ACCOUNTS) {
    await sql`
      insert into member (email, email_verified, password_hash, display_name, role, provider)
      values (${account.email}, true, ${hash}, ${account.displayName}, ${account.role}::member_role, 'LOCAL')`;
  }
}

/**
 * Members numbered `from`..`to`: every fifth signed up with provider one (no password, a picture), every
 * tenth is premium until next month, so the JSON carries nulls and non-nulls alike.
 */
async function insertMembers(sql: postgres.Sql, hash: string, from: number, to: number): Promise<void> {
  await sql`
    insert into member (
      email, email_verified, password_hash, display_name, provider, idpone_id, idpone_picture,
      plan, plan_expires_at, plan_product, plan_auto_renew, points, created_at
    )
    select
      'member-' || g || '@bench.nestegg.test',
      true,
      case when g % 5 = 0 then null else ${hash} end,
      'Member ' || g,
      (case when g % 5 = 0 then 'IDPONE' else 'LOCAL' end)::auth_provider,
      case when g % 5 = 0 then 'idpone-' || g end,
      case when g % 5 = 0 then 'https://idpone.example/picture/' || g end,
      (case when g % 10 = 0 then 'PREMIUM' else 'FREE' end)::member_plan,
      case when g % 10 = 0 then now() + interval '30 days' end,
      case when g % 10 = 0 then 'premium_monthly' end,
      g % 10 = 0,
      g % 1000,
      now() - make_interval(secs => ${to} - g)
    from generate_series(${from}::int, ${to}::int) as g`;
}

/** `size` members in all, the fixture accounts included. */
export const membersDataset: Dataset = {
  name: 'members',
  unit: 'members',
  async seed(sql, size) {
    const hash = await benchPasswordHash();
    let count = await memberCount(sql);
    if (count === 0) {
      await insertFixtureAccounts(sql, hash);
      count = FIXTURE_ACCOUNTS.length;
    }
    if (size > count) await insertMembers(sql, hash, count + 1, size);
    // Measure a settled table: statistics current and the visibility map set, as in production.
    await sql.unsafe('vacuum analyze member');
  },
};
