import { randomBytes } from 'node:crypto';
import { createEmptyDatabase, databaseUrlFor, type TestDatabase, useTestDatabase } from '@nestegg/testing';
import { pino } from 'pino';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { loadEnv } from './env.js';
import { SESSION_CLEANUP_QUEUE } from './jobs/session-cleanup.js';
import { startWorker, type Worker } from './worker.js';

const silent = pino({ level: 'silent' });

/** Connects as `role` to the same server and database as `url`. */
function urlAs(url: string, role: string): string {
  const parsed = new URL(url);
  parsed.username = role;
  parsed.password = '';
  return parsed.toString();
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('timed out');
}

describe('billing worker', () => {
  const database = useTestDatabase();
  const role = `nestegg_worker_${randomBytes(4).toString('hex')}`;
  let admin: postgres.Sql | undefined;

  afterAll(async () => {
    if (!admin) return;
    await admin.unsafe(`drop owned by ${role}`);
    await admin.unsafe(`drop role ${role}`);
    await admin.end();
  });

  it('schedules the session clean-up in Postgres and stops gracefully', async () => {
    const env = loadEnv({ DATABASE_URL: database.current.url, SESSION_CLEANUP_CRON: '5 4 * * *' });
    const worker = await startWorker(env, silent);
    try {
      expect(await worker.isReady()).toBe(true);
      const schedules = await worker.boss.getSchedules();
      expect(schedules).toContainEqual(expect.objectContaining({ name: SESSION_CLEANUP_QUEUE, cron: '5 4 * * *' }));
    } finally {
      await worker.stop();
    }
  });

  it('runs its jobs under a role that has no DDL rights', async () => {
    admin = postgres(database.current.url, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create role ${role} login`);
    await admin.unsafe(`grant connect on database "${database.current.name}" to ${role}`);
    for (const schema of ['public', 'pgboss']) {
      await admin.unsafe(`grant usage on schema ${schema} to ${role}`);
      await admin.unsafe(`grant select, insert, update, delete on all tables in schema ${schema} to ${role}`);
      await admin.unsafe(`grant usage, select on all sequences in schema ${schema} to ${role}`);
    }
    await admin.unsafe(`grant execute on all functions in schema pgboss to ${role}`);

    const asWorker = postgres(urlAs(database.current.url, role), { max: 1, onnotice: () => {} });
    try {
      await expect(asWorker.unsafe('create table ddl_probe (id int)')).rejects.toThrow(/permission denied/);
    } finally {
      await asWorker.end();
    }

    const worker: Worker = await startWorker(loadEnv({ DATABASE_URL: urlAs(database.current.url, role) }), silent);
    try {
      const jobId = await worker.boss.send(SESSION_CLEANUP_QUEUE, {});
      const state = await waitFor(async () => {
        const job = await worker.boss.getJobById(SESSION_CLEANUP_QUEUE, jobId!);
        return job && ['completed', 'failed'].includes(job.state) ? job.state : undefined;
      });
      expect(state).toBe('completed');
    } finally {
      await worker.stop();
    }
  });
});

describe('billing worker without a migrated database', () => {
  let empty: TestDatabase | undefined;
  afterAll(async () => {
    await empty?.drop();
  });

  it('refuses to start and says the migrate step is missing', async () => {
    empty = await createEmptyDatabase();
    await expect(startWorker(loadEnv({ DATABASE_URL: empty.url }), silent)).rejects.toThrow(/migrate step/);
  });
});

describe('worker environment', () => {
  it('names every bad variable: database URL, cron expression, time zone, port', () => {
    expect(() =>
      loadEnv({ SESSION_CLEANUP_CRON: '61 * * * *', JOBS_TIMEZONE: 'Mars/Olympus', WORKER_HEALTH_PORT: 'x' }),
    ).toThrowError(
      /DATABASE_URL[\s\S]*WORKER_HEALTH_PORT[\s\S]*JOBS_TIMEZONE: must be an IANA time zone[\s\S]*SESSION_CLEANUP_CRON: must be a five-field cron expression/,
    );
  });

  it('takes its pool sizes from the environment', () => {
    const env = loadEnv({ DATABASE_URL: databaseUrlFor('x'), DATABASE_POOL_SIZE: '7', JOBS_POOL_SIZE: '3' });
    expect(env).toMatchObject({ DATABASE_POOL_SIZE: 7, JOBS_POOL_SIZE: 3 });
  });
});
