import type { Database } from '@nestegg/db';
import type { Clock } from '../../infrastructure.js';
import type { AccountNumberCipher } from './account-numbers.js';

export interface WalletsDeps {
  db: Database;
  clock: Clock;
  accountNumbers: AccountNumberCipher;
  /** `APP_TIMEZONE`: the calendar of net-worth days, weeks and months. */
  timeZone: string;
}

/** Wallets and net worth (placeholder until implemented). */
export class WalletsService {
  constructor(readonly deps: WalletsDeps) {}
}
