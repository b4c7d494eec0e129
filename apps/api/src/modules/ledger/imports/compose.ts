import { DailyQuota } from '../../../lib/daily-quota.js';
import { AppError, ServiceUnavailableError } from '../../../lib/errors.js';
import { giveWay } from '../../../lib/give-way.js';
import type { Infrastructure } from '../../../lib/infrastructure.js';
import type { ExchangeRatesService } from '../exchange-rates/index.js';
import { StatementImportsService } from './imports.service.js';
import { StatementReader } from './statement-reader.js';

/** Statement import, given exactly what it uses (called by the composition root). */
export function statementImportsService(
  { env, db, attempts, clock, logger, traffic, metrics }: Infrastructure,
  exchangeRates: Pick<ExchangeRatesService, 'rateFor'>,
): StatementImportsService {
  const quota = new DailyQuota(
    { attempts, clock, logger, timeZone: env.APP_TIMEZONE },
    {
      name: 'statement-import',
      unit: 'uploads',
      exceeded: (retryAfterSeconds) =>
        new AppError('IMPORT_QUOTA_EXCEEDED', "You have used today's statement uploads. Try again tomorrow.", {
          retryAfterSeconds,
        }),
      unavailable: () =>
        new ServiceUnavailableError(
          'SERVICE_UNAVAILABLE',
          'Statement import is not available right now. Try again shortly.',
        ),
    },
  );
  return new StatementImportsService({
    db,
    clock,
    logger,
    reader: new StatementReader({ maxQueued: 4, maxHeapMb: 512 }),
    quota,
    exchangeRates,
    timeZone: env.APP_TIMEZONE,
    giveWay: giveWay({
      traffic,
      share: env.IMPORT_BUSY_SHARE,
      paused: (seconds) => metrics.giveWayPauses.inc({ job: 'statement_import' }, seconds),
    }),
    rules: {
      matchWindowDays: env.IMPORT_MATCH_WINDOW_DAYS,
      undoHours: env.IMPORT_UNDO_HOURS,
      uploadsPerDay: { FREE: env.IMPORT_DAILY_UPLOADS_FREE, PREMIUM: env.IMPORT_DAILY_UPLOADS_PREMIUM },
    },
  });
}
