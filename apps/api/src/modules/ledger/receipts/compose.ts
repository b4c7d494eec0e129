import type { Infrastructure } from '../../../lib/infrastructure.js';
import { ReceiptQuota } from './receipt-quota.js';
import { ReceiptsService } from './receipts.service.js';
import { GoogleVisionTextRecognizer } from './text-recognition.js';

/** Receipt recognition, given exactly what it uses (called by the composition root). */
export function receiptsService({ env, attempts, clock, logger }: Infrastructure): ReceiptsService {
  const recognizer =
    env.OCR_API_URL && env.OCR_API_KEY
      ? new GoogleVisionTextRecognizer(
          { baseUrl: env.OCR_API_URL, apiKey: env.OCR_API_KEY, timeoutMs: env.OCR_TIMEOUT_MS },
          logger,
        )
      : null;
  const quota = new ReceiptQuota({ attempts, clock, logger, timeZone: env.APP_TIMEZONE, perDay: env.OCR_DAILY_QUOTA });
  return new ReceiptsService({ recognizer, quota });
}
