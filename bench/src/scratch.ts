import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { migrateDatabase } from '@nestegg/db/migrate';
import { Redis } from 'ioredis';
import postgres from 'postgres';

export function databaseUrlFor(baseUrl: string, name: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Scratch databases of one run: a migrated template, and one copy per dataset (each grown in place
 * from its smallest size to its largest). All are dropped at the end.
 */
export class ScratchDatabases {
  private readonly names: string[] = [];
  private readonly run = `nestegg_bench_${randomBytes(4).toString('hex')}`;
  private template: Promise<string> | undefined;

  constructor(private readonly baseUrl: string) {}

  private async admin<T>(work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
    const sql = postgres(this.baseUrl, { max: 1, onnotice: () => {} });
    try {
      return await work(sql);
    } finally {
      await sql.end();
    }
  }

  private async create(name: string, template?: string): Promise<string> {
    await this.admin((sql) => sql.unsafe(`create database "${name}"${template ? ` template "${template}"` : ''}`));
    this.names.push(name);
    return databaseUrlFor(this.baseUrl, name);
  }

  private migratedTemplate(): Promise<string> {
    this.template ??= (async () => {
      const name = `${this.run}_template`;
      await migrateDatabase(await this.create(name));
      return name;
    })();
    return this.template;
  }

  async forDataset(dataset: string): Promise<string> {
    return this.create(`${this.run}_${dataset}`, await this.migratedTemplate());
  }

  /**
   * A copy of a dataset's database as it is now (nobody may be connected to it): its smallest size, kept for
   * the growth rows' paired measurement at the largest (`measureAll` in run.ts).
   */
  async snapshot(dataset: string, size: number): Promise<string> {
    // The seeding connection has closed, but its server process may still be leaving (55006 until it has).
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.create(`${this.run}_${dataset}_at_${size}`, `${this.run}_${dataset}`);
      } catch (error) {
        if ((error as { code?: string }).code !== '55006' || attempt === 50) throw error;
        await sleep(100);
      }
    }
  }

  async dropAll(): Promise<void> {
    const names = this.names.splice(0).reverse();
    await this.admin(async (sql) => {
      for (const name of names) await sql.unsafe(`drop database if exists "${name}" with (force)`);
    });
  }
}

export const scratchRedisPrefix = () => `nestegg:bench:${randomBytes(4).toString('hex')}:`;

/** SCAN ignores ioredis' keyPrefix, so this client has none and matches the full keys. */
export async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
