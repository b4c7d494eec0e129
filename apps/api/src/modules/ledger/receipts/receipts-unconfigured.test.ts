import sharp from 'sharp';
import { describe } from 'vitest';
import { problemOf } from '../../../test/client.js';
import { test } from '../../../test/fixtures.js';

describe('receipt recognition without a recognition key', () => {
  test('answers 503 PROVIDER_NOT_CONFIGURED for a good image', async ({ premium }) => {
    const png = await sharp({ create: { width: 40, height: 60, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();
    const file = new File([new Uint8Array(png)], 'receipt.png', { type: 'image/png' });
    const answer = await premium.api.ledger.receipts.recognize({ body: { file } });
    problemOf(answer, 503, 'PROVIDER_NOT_CONFIGURED');
  });

  test('judges the upload first: a broken image is 400 INVALID_IMAGE (issue 17 item 10)', async ({ premium }) => {
    const file = new File([new Uint8Array([0xff, 0xd8, 0xff, 0xe0])], 'receipt.jpg', { type: 'image/jpeg' });
    problemOf(await premium.api.ledger.receipts.recognize({ body: { file } }), 400, 'INVALID_IMAGE');
  });
});
