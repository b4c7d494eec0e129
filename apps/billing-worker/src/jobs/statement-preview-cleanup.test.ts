import { createDb, type DbHandle, member, statementImport, statementImportRow } from '@nestegg/db';
import { useTestDatabase } from '@nestegg/testing';
import { eq, sql } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEnv } from '../env.js';
import { deleteStalePreviews, statementPreviewCleanupJob } from './statement-preview-cleanup.js';

const HOUR = 3_600_000;

describe('clean-up of statement-import previews nobody committed', () => {
  const database = useTestDatabase();
  let handle: DbHandle;
  let memberId: number;
  beforeAll(async () => {
    handle = createDb(database.current.url, { max: 4 });
    const [row] = await handle.db
      .insert(member)
      .values({ email: 'imports@nestegg.test', displayName: 'Importer' })
      .returning({ id: member.id });
    memberId = row!.id;
  });
  afterAll(async () => {
    await handle.close();
  });

  /** An import last changed `hoursAgo` hours ago, with one row. */
  async function anImport(status: 'PREVIEW' | 'COMMITTED', hoursAgo: number): Promise<number> {
    const at = new Date(Date.now() - hoursAgo * HOUR);
    const [row] = await handle.db
      .insert(statementImport)
      .values({
        memberId,
        status,
        fileName: 'card.csv',
        fileHash: 'h',
        fileBytes: Buffer.from('이용일자,가맹점명,이용금액'),
        fileSize: 10,
        reading: {},
        settings: {},
        counts: {},
        rowCount: 1,
        updatedAt: at,
        ...(status === 'COMMITTED' ? { committedAt: at } : {}),
      })
      .returning({ id: statementImport.id });
    await handle.db
      .insert(statementImportRow)
      .values({ memberId, importId: row!.id, rowIndex: 0, line: {}, outcome: 'NEW' });
    return row!.id;
  }

  it('deletes old previews with their rows, in batches; keeps recent previews and committed imports', async () => {
    const stale = [await anImport('PREVIEW', 200), await anImport('PREVIEW', 170), await anImport('PREVIEW', 169)];
    const fresh = await anImport('PREVIEW', 1);
    const history = await anImport('COMMITTED', 500);
    expect(await deleteStalePreviews(handle.db, new Date(Date.now() - 168 * HOUR), 2)).toBe(3);
    const left = await handle.db.select({ id: statementImport.id }).from(statementImport);
    expect(left.map((row) => row.id).sort()).toEqual([fresh, history].sort());
    const rows = await handle.db
      .select({ id: statementImportRow.importId })
      .from(statementImportRow)
      .where(sql`${statementImportRow.importId} = any(${`{${stale.join(',')}}`}::int[])`);
    expect(rows).toEqual([]);
  });

  it('runs as a scheduled job on the configured keep time', async () => {
    const stale = await anImport('PREVIEW', 30);
    const env = loadEnv({ DATABASE_URL: database.current.url, STATEMENT_PREVIEW_KEEP_HOURS: '24' });
    const context = { db: handle.db, logger: pino({ level: 'silent' }), now: () => new Date() } as never;
    expect(await statementPreviewCleanupJob.run(context, env)).toEqual({ deleted: 1 });
    expect(await handle.db.select().from(statementImport).where(eq(statementImport.id, stale))).toEqual([]);
    expect(statementPreviewCleanupJob.cron(env)).toBe('57 3 * * *');
  });
});
