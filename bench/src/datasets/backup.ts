import type { BackupInput } from '@nestegg/contract';
import type postgres from 'postgres';
import { addDays } from '../baseline/domain.js';
import type { Dataset } from '../rows/types.js';
import { benchPasswordHash } from './members.js';

/**
 * The restore rows (issue 10, rule 15): a PREMIUM member whose whole ledger a backup replaces, again and again
 * (each restore deletes the previous one's entries), and a member whose profile is read meanwhile. `size` is
 * not grown in the database: it is the number of entries in the backup the rows restore.
 */

export const RESTORE_MEMBER_EMAIL = 'bench-restore@nestegg.test';
export const NEIGHBOUR_MEMBER_EMAIL = 'bench-neighbour@nestegg.test';

async function seedMembers(sql: postgres.Sql): Promise<void> {
  const hash = await benchPasswordHash();
  await sql`
    insert into member (email, email_verified, password_hash, display_name, provider, plan)
    values (${RESTORE_MEMBER_EMAIL}, true, ${hash}, 'Restoring member', 'LOCAL', 'PREMIUM'),
           (${NEIGHBOUR_MEMBER_EMAIL}, true, ${hash}, 'Neighbour member', 'LOCAL', 'FREE')
    on conflict do nothing`;
  await sql.unsafe('vacuum analyze member');
}

/** The member restores a backup of `size` entries (POST /api/account/restore). */
export const backupDataset: Dataset = {
  name: 'backup',
  unit: 'entries in the backup',
  seed: seedMembers,
};

/**
 * The same members in a database (and so a child process) of their own: the rows on it start a loop of
 * restores in the background, which must not run while `backupDataset`'s row is measured.
 */
export const restoreNeighboursDataset: Dataset = {
  name: 'backup-neighbours',
  unit: 'entries per background restore',
  seed: seedMembers,
};

/**
 * A backup of `count` entries over a few wallets, tags and categories, dates spread over the past years: the
 * api's own generator for its large-restore test (apps/api/src/modules/ledger/backup/test-ledgers.ts
 * `generatedBackup`), copied because that file imports the api's test helpers.
 */
export function benchBackup(count: number): BackupInput {
  return {
    accounts: [
      { name: '현금', type: 'CASH', openingBalance: 100_000 },
      { name: '카드', type: 'CARD', cardCompany: '현대' },
      { name: '통장', type: 'BANK', accountNumber: '110-123-456789' },
    ],
    tags: [{ name: '여행' }, { name: '가족' }],
    categories: [
      { name: '식비', type: 'EXPENSE' },
      { name: '카페', type: 'EXPENSE', parent: '식비' },
      { name: '급여', type: 'INCOME' },
    ],
    entries: Array.from({ length: count }, (_, index) => ({
      type: index % 10 === 0 ? ('INCOME' as const) : ('EXPENSE' as const),
      amount: 1_000 + (index % 977) * 10,
      date: addDays('2020-01-01', index % 2_000),
      memo: `가맹점 ${index % 500}`,
      category: index % 10 === 0 ? '급여' : index % 3 === 0 ? '카페' : '식비',
      account: ['현금', '카드', '통장'][index % 3]!,
      ...(index % 7 === 0 ? { tags: ['여행', '가족'] } : {}),
    })),
    quickEntries: [{ name: '커피', amount: 4_500, category: '카페' }],
  };
}
