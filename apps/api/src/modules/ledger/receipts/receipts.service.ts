import { ServiceUnavailableError } from '../../../lib/errors.js';
import { receiptImageToSend } from './receipt-image.js';
import type { ReceiptQuota } from './receipt-quota.js';
import { RecognitionFailedError, type TextRecognizer } from './text-recognition.js';

export interface ReceiptsDeps {
  /** The text-recognition provider; null when `OCR_API_URL`/`OCR_API_KEY` are not set. */
  recognizer: TextRecognizer | null;
  quota: ReceiptQuota;
}

/** Receipt recognition (`POST /api/account/ocr/receipt`), over explicit dependencies. */
export class ReceiptsService {
  constructor(private readonly deps: ReceiptsDeps) {}

  /** Throws 503 `PROVIDER_NOT_CONFIGURED` when no recognition key is set (checked after the upload, FI4). */
  assertAvailable(): TextRecognizer {
    if (this.deps.recognizer) return this.deps.recognizer;
    throw new ServiceUnavailableError('PROVIDER_NOT_CONFIGURED', 'Receipt recognition is not set up on this server.');
  }

  /**
   * The full text of a receipt image. One of the member's daily recognitions is counted before any work
   * (429 when they are used up) and given back when the image is refused or the provider fails, so only
   * answered recognitions count. The image is checked before the provider's configuration: a broken upload
   * is 400 whether or not recognition is set up (decision FI4).
   */
  async recognize(memberId: number, untrusted: Buffer): Promise<string> {
    const slot = await this.deps.quota.reserve(memberId);
    try {
      const image = await receiptImageToSend(untrusted);
      return await this.assertAvailable().recognize(image);
    } catch (error) {
      await slot.release();
      if (!(error instanceof RecognitionFailedError)) throw error;
      throw new ServiceUnavailableError(
        'PROVIDER_UNAVAILABLE',
        'The text-recognition provider cannot read the receipt right now. Try again later.',
      );
    }
  }
}
