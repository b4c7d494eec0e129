import { describe, expect } from 'vitest';
import { apiTest } from '../../../test/fixtures.js';
import { generatedBackup } from './ledgers.fixture.js';
import { RestoreParser } from './restore-parser.js';

const LIMIT = 1024 * 1024;
const test = apiTest({ RESTORE_MAX_BYTES: String(LIMIT) });

describe('the restore body limit (RESTORE_MAX_BYTES)', () => {
  test('a body over it is 413 PAYLOAD_TOO_LARGE; one under it restores', async ({ app, premium }) => {
    const restore = (payload: string) =>
      app.inject({
        method: 'POST',
        url: '/api/account/restore',
        headers: { ...premium.headers, 'content-type': 'application/json' },
        payload,
      });
    const over = JSON.stringify(generatedBackup(12_000));
    expect(Buffer.byteLength(over)).toBeGreaterThan(LIMIT);
    const refused = await restore(over);
    expect([refused.statusCode, refused.json().code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);

    const under = JSON.stringify(generatedBackup(5_000));
    expect(Buffer.byteLength(under)).toBeLessThan(LIMIT);
    expect((await restore(under)).json()).toMatchObject({ entries: 5_000 });
  });
});

describe('the restore worker', () => {
  test('a backup whose objects do not fit its heap is 413, and the next one is served by a new worker', async () => {
    const parser = new RestoreParser({ maxQueued: 2, maxHeapMb: 32 });
    const entriesOf = async (body: Buffer) => {
      const session = await parser.open(body, '2026-05-01');
      let entries = 0;
      for await (const batch of session.entryBatches()) entries += JSON.parse(batch).length;
      return entries;
    };
    try {
      const huge = Buffer.from(JSON.stringify(generatedBackup(60_000)));
      await expect(entriesOf(huge)).rejects.toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
      expect(await entriesOf(Buffer.from(JSON.stringify(generatedBackup(3))))).toBe(3);
    } finally {
      await parser.close();
    }
  }, 60_000);

  test('more backups than it queues are refused with 503 OVERLOADED', async () => {
    const parser = new RestoreParser({ maxQueued: 0, maxHeapMb: 512 });
    try {
      const body = () => Buffer.from(JSON.stringify(generatedBackup(20_000)));
      const first = parser.open(body(), '2026-05-01');
      await expect(parser.open(body(), '2026-05-01')).rejects.toMatchObject({ status: 503, code: 'OVERLOADED' });
      const session = await first;
      let entries = 0;
      for await (const batch of session.entryBatches()) entries += JSON.parse(batch).length;
      expect(entries).toBe(20_000);
    } finally {
      await parser.close();
    }
  }, 60_000);
});
