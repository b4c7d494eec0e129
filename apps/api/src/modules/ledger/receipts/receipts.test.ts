import { type RecordedRequest, startFakeServer } from '@nestegg/testing';
import sharp from 'sharp';
import { afterAll, beforeEach, describe, expect } from 'vitest';
import { bodyOf, problemOf } from '../../../test/client.js';
import { apiTest, type Caller } from '../../../test/fixtures.js';

const RECEIPT_TEXT = '이마트 성수점\n신라면 5입 4,480\n합계 4,480\n카드 승인 12345678';
const EXIF_MARK = 'RECEIPT-EXIF-MARK';

/** The fake Google Cloud Vision: `mode` makes it fail or hang. */
const vision = { mode: 'up' as 'up' | 'down' | 'error' | 'slow' };

function annotate(request: RecordedRequest) {
  if (request.headers['x-goog-api-key'] !== 'vision-key') return { status: 403, body: { error: { code: 403 } } };
  if (vision.mode === 'error') return { body: { responses: [{ error: { code: 3, message: 'Bad image data.' } }] } };
  return { body: { responses: [{ fullTextAnnotation: { text: RECEIPT_TEXT }, textAnnotations: [] }] } };
}

const provider = await startFakeServer({
  'POST /v1/images:annotate': async (request) => {
    if (vision.mode === 'down') return { status: 500, body: { error: { code: 500, message: 'backend error' } } };
    if (vision.mode === 'slow') await new Promise((resolve) => setTimeout(resolve, 1500));
    return annotate(request);
  },
});
afterAll(() => provider.close());

const test = apiTest({
  OCR_API_URL: provider.url,
  OCR_API_KEY: 'vision-key',
  OCR_TIMEOUT_MS: '500',
  OCR_DAILY_QUOTA: '3',
  OCR_RATE_LIMIT_PER_MINUTE: '6',
});

/** A real photo-like JPEG carrying EXIF metadata (which must not reach the provider). */
async function receiptJpeg(): Promise<Buffer> {
  return sharp({ create: { width: 400, height: 900, channels: 3, background: '#f4f1ea' } })
    .jpeg()
    .withExif({ IFD0: { ImageDescription: EXIF_MARK, Copyright: EXIF_MARK } })
    .toBuffer();
}

async function receiptPng(): Promise<Buffer> {
  return sharp({ create: { width: 300, height: 300, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer();
}

function upload(caller: Caller, bytes: Buffer, name = 'receipt.jpg', type = 'image/jpeg') {
  return caller.api.ledger.receipts.recognize({ body: { file: new File([new Uint8Array(bytes)], name, { type }) } });
}

const annotateCalls = () => provider.requests.length;

beforeEach(() => {
  vision.mode = 'up';
});

describe('receipt recognition: POST /api/account/ocr/receipt', () => {
  test('returns the full text the provider recognized in a real JPEG or PNG', async ({ premium }) => {
    const before = annotateCalls();
    expect(bodyOf(await upload(premium, await receiptJpeg()), 200)).toEqual({ text: RECEIPT_TEXT });
    expect(bodyOf(await upload(premium, await receiptPng(), 'receipt.png', 'image/png'), 200).text).toBe(RECEIPT_TEXT);
    expect(annotateCalls()).toBe(before + 2);
  });

  test('sends a re-encoded copy without metadata, with the key in a header, for document text detection', async ({
    premium,
  }) => {
    const original = await receiptJpeg();
    expect(original.includes(EXIF_MARK)).toBe(true);
    bodyOf(await upload(premium, original), 200);
    const sent = provider.requests.at(-1)!;
    expect(sent.path).toBe('/v1/images:annotate');
    expect(sent.query.get('key')).toBeNull();
    const request = JSON.parse(sent.body).requests[0];
    expect(request.features).toEqual([{ type: 'DOCUMENT_TEXT_DETECTION' }]);
    expect(request.imageContext).toEqual({ languageHints: ['ko', 'en'] });
    const image = Buffer.from(request.image.content, 'base64');
    expect(image.includes(EXIF_MARK)).toBe(false);
    expect(image.equals(original)).toBe(false);
    const metadata = await sharp(image).metadata();
    expect(metadata).toMatchObject({ format: 'jpeg', width: 400, height: 900 });
    expect(metadata.exif).toBeUndefined();
  });

  test('refuses what is not an image (400) and what is over 10 MB (413) without calling the provider', async ({
    premium,
  }) => {
    const before = annotateCalls();
    problemOf(await upload(premium, Buffer.from('%PDF-1.7 not an image')), 400, 'INVALID_IMAGE');
    const jpeg = await receiptJpeg();
    problemOf(await upload(premium, jpeg.subarray(0, jpeg.length - 40)), 400, 'INVALID_IMAGE');
    const huge = Buffer.concat([jpeg, Buffer.alloc(11 * 1024 * 1024 - jpeg.length, 7)]);
    problemOf(await upload(premium, huge), 413, 'PAYLOAD_TOO_LARGE');
    expect(annotateCalls()).toBe(before);
  });

  test('takes multipart with a `file` only: JSON is 415, a missing file 400', async ({ app, premium }) => {
    const json = await app.inject({
      method: 'POST',
      url: '/api/account/ocr/receipt',
      headers: { ...premium.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ file: 'aGVsbG8=' }),
    });
    expect(json.statusCode).toBe(415);
    expect(json.json().code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const form = new FormData();
    form.append('image', new File([new Uint8Array(await receiptPng())], 'r.png', { type: 'image/png' }));
    const wrongField = await premium.api.ledger.receipts.recognize({ body: form as never });
    expect(problemOf(wrongField, 400, 'VALIDATION_FAILED').errors).toEqual([
      { path: 'body.file', message: 'a file is required' },
    ]);
    // The other way round: a JSON route refuses a multipart body instead of reading it as empty.
    const multipartToJson = await app.inject({
      method: 'POST',
      url: '/api/account/holdings',
      headers: premium.headers,
      payload: form,
    });
    expect(multipartToJson.statusCode).toBe(415);
  });

  test('a provider error, outage or timeout is 503 and does not use up the quota', async ({ premium }) => {
    for (const mode of ['down', 'error', 'slow'] as const) {
      vision.mode = mode;
      const answer = await upload(premium, await receiptPng());
      problemOf(answer, 503, 'PROVIDER_UNAVAILABLE');
      expect(answer.headers.get('retry-after')).toBe('30');
    }
    vision.mode = 'up';
    for (let index = 0; index < 3; index += 1) bodyOf(await upload(premium, await receiptPng()), 200);
  });

  test('a daily quota per member: the next recognition is 429 until the next day, even in parallel', async ({
    premium,
    admin,
  }) => {
    const image = await receiptPng();
    const answers = await Promise.all(Array.from({ length: 5 }, () => upload(premium, image)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(3);
    const refused = answers.filter((answer) => answer.status !== 200);
    for (const answer of refused) problemOf(answer, 429, 'RECEIPT_QUOTA_EXCEEDED');
    const retryAfter = Number(refused[0]!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(refused[0]!.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused[0]!.headers.get('x-ratelimit-reset')).toBe(String(retryAfter));
    // Another member has their own quota.
    bodyOf(await upload(admin, image), 200);
  });

  test('a per-minute rate limit per member (429 RATE_LIMITED with Retry-After)', async ({ premium }) => {
    const notAnImage = Buffer.from('not an image');
    for (let index = 0; index < 6; index += 1) problemOf(await upload(premium, notAnImage), 400, 'INVALID_IMAGE');
    const limited = await upload(premium, notAnImage);
    problemOf(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  test('FREE members are refused (403) before anything is read', async ({ free }) => {
    problemOf(await upload(free, await receiptPng()), 403, 'PREMIUM_REQUIRED');
  });
});
