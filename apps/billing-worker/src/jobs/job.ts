import type { Database } from '@nestegg/db';
import type { AppStoreGateway, AppStoreSync, MembershipSync, StoreApi } from '@nestegg/membership';
import type { Logger } from 'pino';
import type { WorkerEnv } from '../env.js';

/** What a job gets: explicit dependencies, never the worker itself. */
export interface JobContext {
  db: Database;
  logger: Logger;
  now: () => Date;
  /** `APP_TIMEZONE`: the ledger's calendar (whose day it is for recurring transactions). */
  timeZone: string;
  /** The billing jobs' membership rules and store (the worker always sets it; other jobs' tests need not). */
  membership?: MembershipJobContext;
}

export interface MembershipJobContext {
  sync: MembershipSync;
  store: StoreApi | null;
  /** The App Store's side; its gateway is null when the App Store is not configured. */
  appStore: AppStoreSync;
  appStoreGateway: AppStoreGateway | null;
  /** Hands stored store notifications to the job engine; returns how many. */
  dispatchInbox: () => Promise<number>;
}

/** A job the worker schedules: its queue, when it runs, and what it does (returns a summary for the log). */
export interface ScheduledJob {
  queue: string;
  cron: (env: WorkerEnv) => string;
  /** `env` carries the job's own settings (its retention, its limits). */
  run: (context: JobContext, env: WorkerEnv) => Promise<Record<string, unknown>>;
}
