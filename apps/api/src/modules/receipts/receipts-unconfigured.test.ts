import { describe } from 'vitest';
import { problemOf } from '../../test/client.js';
import { test } from '../../test/fixtures.js';

describe('receipt recognition without a recognition key', () => {
  test('answers 503 PROVIDER_NOT_CONFIGURED', async ({ premium }) => {
    const file = new File([new Uint8Array([0xff, 0xd8, 0xff, 0xe0])], 'receipt.jpg', { type: 'image/jpeg' });
    const answer = await premium.api.ledger.receipts.recognize({ body: { file } });
    problemOf(answer, 503, 'PROVIDER_NOT_CONFIGURED');
  });
});
