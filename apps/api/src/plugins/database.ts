import { createDb, type Database } from '@nestegg/db';
import fp from 'fastify-plugin';
import type postgres from 'postgres';

declare module 'fastify' {
  interface FastifyInstance {
    db: Database;
    sql: postgres.Sql;
  }
}

export interface DatabasePluginOptions {
  url: string;
  poolSize: number;
}

export default fp<DatabasePluginOptions>(
  async (app, options) => {
    const handle = createDb(options.url, { max: options.poolSize, applicationName: 'nestegg-api', connectTimeout: 5 });
    app.decorate('db', handle.db);
    app.decorate('sql', handle.sql);
    app.addHook('onClose', async () => {
      await handle.close();
    });
  },
  { name: 'database' },
);
