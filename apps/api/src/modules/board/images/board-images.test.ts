import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { boardImage } from '@nestegg/db';
import { eq, sql } from 'drizzle-orm';
import sharp, { type FormatEnum } from 'sharp';
import { describe, expect } from 'vitest';
import { createMemberWithSession } from '../../../test/app.js';
import { bodyOf, contractClient, problemOf } from '../../../test/client.js';
import { apiTest, type Caller } from '../../../test/fixtures.js';
import { BOARD_IMAGE_MAX_FRAMES, BOARD_IMAGE_MAX_SIDE } from './board-image.js';

const test = apiTest({
  BOARD_IMAGE_QUOTA_PER_DAY: '4',
  BOARD_IMAGE_QUOTA_BYTES_PER_DAY: String(8 * 1024 * 1024),
  BOARD_IMAGE_RATE_LIMIT_PER_MINUTE: '8',
});

const URL_PATTERN = /^http:\/\/nestegg\.test\/api\/images\/([A-Za-z0-9_-]{16})$/;
const MARK = 'BOARD-EXIF-MARK';

function solid(width: number, height: number, format: keyof FormatEnum, colour = '#3366aa'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .toFormat(format)
    .toBuffer();
}

/** An animation of `frames` frames of `width × height`, each a different colour, 100 ms apart. */
function animation(format: 'gif' | 'webp', frames: number, width = 24, height = 16): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * frames * 4);
  for (let index = 0; index < width * height * frames; index += 1) {
    const frame = Math.floor(index / (width * height));
    pixels.set([(frame * 80) % 256, 40, 255 - ((frame * 80) % 256), 255], index * 4);
  }
  const delay = Array.from({ length: frames }, () => 100);
  return sharp(pixels, { raw: { width, height: height * frames, channels: 4, pageHeight: height } })
    .toFormat(format, { delay, loop: 0 })
    .toBuffer();
}

/** Random pixels: a PNG that does not compress (about 3 bytes per pixel when stored). */
function noisyPng(width: number, height: number): Promise<Buffer> {
  return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type, 'latin1'), data])));
  return Buffer.concat([length, Buffer.from(type, 'latin1'), data, checksum]);
}

/** A valid one-bit PNG of 20000 × 20000 pixels in a few dozen kilobytes. */
function decompressionBomb(): Buffer {
  const side = 20_000;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 1;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.alloc((1 + side / 8) * side), { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function upload(caller: Caller, bytes: Buffer, name = 'picture.png', type = 'image/png') {
  return caller.api.board.uploadImage({ body: { file: new File([new Uint8Array(bytes)], name, { type }) } });
}

/** Uploads and returns the image id from the answered URL. */
async function uploaded(caller: Caller, bytes: Buffer): Promise<string> {
  const { url } = bodyOf(await upload(caller, bytes), 201);
  const id = URL_PATTERN.exec(url)?.[1];
  if (!id) throw new Error(`not an image URL: ${url}`);
  return id;
}

describe('board image upload: POST /api/board/images', () => {
  test.for([
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
    ['gif', 'image/png'],
    ['webp', 'image/webp'],
  ] as const)(
    'stores a re-encoded %s as %s and answers its short absolute URL',
    async ([format, type], { app, free, anonymous }) => {
      const original = await solid(40, 30, format);
      const response = await upload(free, original, `picture.${format}`, `image/${format}`);
      const { url } = bodyOf(response, 201);
      expect(url).toMatch(URL_PATTERN);
      const id = URL_PATTERN.exec(url)![1]!;

      const served = await anonymous.board.getImage({ params: { id } });
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe(type);
      const bytes = served.body as Buffer;
      expect(bytes.equals(original)).toBe(false);
      expect(await sharp(bytes).metadata()).toMatchObject({ format: type.slice(6), width: 40, height: 30 });
      const [row] = await app.db.select().from(boardImage).where(eq(boardImage.id, id));
      expect(row).toMatchObject({ memberId: free.id, contentType: type, byteSize: bytes.length });
    },
  );

  test('drops EXIF and GPS metadata and applies the orientation', async ({ free, anonymous }) => {
    const photo = await sharp({ create: { width: 60, height: 20, channels: 3, background: '#884422' } })
      .jpeg()
      .withExif({ IFD0: { ImageDescription: MARK }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' } })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    expect(photo.includes(MARK)).toBe(true);
    const id = await uploaded(free, photo);
    const stored = (await anonymous.board.getImage({ params: { id } })).body as Buffer;
    expect(stored.includes(MARK)).toBe(false);
    const metadata = await sharp(stored).metadata();
    expect([metadata.width, metadata.height, metadata.exif, metadata.orientation]).toEqual([
      20,
      60,
      undefined,
      undefined,
    ]);
  });

  test.for([
    ['gif', 'image/gif'],
    ['webp', 'image/webp'],
  ] as const)('keeps every frame of an animated %s, with its timing', async ([format, type], { free, anonymous }) => {
    const id = await uploaded(free, await animation(format, 3));
    const served = await anonymous.board.getImage({ params: { id } });
    expect(served.headers.get('content-type')).toBe(type);
    const metadata = await sharp(served.body as Buffer).metadata();
    expect(metadata).toMatchObject({ format, width: 24, pages: 3, delay: [100, 100, 100] });
  });

  test('scales a large image down to fit 2048 pixels, keeping the aspect ratio', async ({ free, anonymous }) => {
    const id = await uploaded(free, await solid(4096, 1024, 'png'));
    const stored = (await anonymous.board.getImage({ params: { id } })).body as Buffer;
    expect(await sharp(stored).metadata()).toMatchObject({ width: BOARD_IMAGE_MAX_SIDE, height: 512 });
  });

  test('refuses what is not a complete image (400 INVALID_IMAGE) and stores nothing', async ({ app, free }) => {
    const png = await solid(64, 64, 'png');
    const refused = [
      Buffer.from('%PDF-1.7 not an image'),
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      Buffer.from('GIF89a/*\x01\x00\x01\x00\x00\x00\x00*/=alert(1);//', 'latin1'),
      png.subarray(0, png.length - 30),
      await solid(8, 8, 'tiff'),
    ];
    for (const bytes of refused) problemOf(await upload(free, bytes), 400, 'INVALID_IMAGE');
    const stored = await app.db.select({ id: boardImage.id }).from(boardImage).where(eq(boardImage.memberId, free.id));
    expect(stored).toEqual([]);
  });

  test('refuses more than 5 MB with 413, before decoding', async ({ free }) => {
    const png = await solid(10, 10, 'png');
    const sixMegabytes = Buffer.concat([png, Buffer.alloc(6 * 1024 * 1024 - png.length, 1)]);
    problemOf(await upload(free, sixMegabytes), 413, 'PAYLOAD_TOO_LARGE');
  });

  test('refuses a decompression bomb from its header (400 IMAGE_TOO_LARGE), quickly', async ({ free }) => {
    const bomb = decompressionBomb();
    expect(bomb.length).toBeLessThan(100_000);
    const started = performance.now();
    problemOf(await upload(free, bomb), 400, 'IMAGE_TOO_LARGE');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  test('refuses an animation with more frames than kept (400 IMAGE_TOO_LARGE)', async ({ free }) => {
    const tooLong = await animation('gif', BOARD_IMAGE_MAX_FRAMES + 1, 2, 2);
    problemOf(await upload(free, tooLong), 400, 'IMAGE_TOO_LARGE');
  });

  test('takes multipart with a `file` only: JSON is 415, a missing file 400, no session 401', async ({
    app,
    free,
    anonymous,
  }) => {
    const json = await app.inject({
      method: 'POST',
      url: '/api/board/images',
      headers: { ...free.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ file: 'aGVsbG8=' }),
    });
    expect([json.statusCode, json.json().code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const form = new FormData();
    form.append('image', new File([new Uint8Array(await solid(4, 4, 'png'))], 'x.png', { type: 'image/png' }));
    const wrongField = await free.api.board.uploadImage({ body: form as never });
    expect(problemOf(wrongField, 400, 'VALIDATION_FAILED').errors).toEqual([
      { path: 'body.file', message: 'a file is required' },
    ]);
    const file = new File([new Uint8Array(await solid(4, 4, 'png'))], 'x.png', { type: 'image/png' });
    problemOf(await anonymous.board.uploadImage({ body: { file } }), 401, 'UNAUTHENTICATED');
  });
});

describe('board image quota and rate limit', () => {
  test('counts images per member over 24 hours, race-free: parallel uploads cannot pass it', async ({
    app,
    free,
    other,
  }) => {
    const image = await solid(16, 16, 'png');
    const answers = await Promise.all(Array.from({ length: 6 }, () => upload(free, image)));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(4);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(refused).toHaveLength(2);
    for (const answer of refused) problemOf(answer, 429, 'IMAGE_QUOTA_EXCEEDED');
    const retryAfter = Number(refused[0]!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(86_000);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    const [count] = await app.db
      .select({ n: sql<number>`count(*)::int` })
      .from(boardImage)
      .where(eq(boardImage.memberId, free.id));
    expect(count!.n).toBe(4);

    // Another member has their own quota; uploads older than 24 hours no longer count.
    bodyOf(await upload(other, image), 201);
    await app.db
      .update(boardImage)
      .set({ createdAt: sql`now() - interval '25 hours'` })
      .where(eq(boardImage.memberId, free.id));
    bodyOf(await upload(free, image), 201);
  });

  test('counts stored bytes too: an upload that would pass the daily bytes is refused', async ({ free }) => {
    const noisy = await noisyPng(1000, 1000); // about 3 MB, stored about as large
    bodyOf(await upload(free, noisy), 201);
    bodyOf(await upload(free, noisy), 201);
    problemOf(await upload(free, noisy), 429, 'IMAGE_QUOTA_EXCEEDED');
    bodyOf(await upload(free, await solid(16, 16, 'png')), 201);
  });

  test('a per-minute rate limit per member (429 RATE_LIMITED with Retry-After)', async ({ app, free }) => {
    const notAnImage = Buffer.from('not an image');
    for (let index = 0; index < 8; index += 1) problemOf(await upload(free, notAnImage), 400, 'INVALID_IMAGE');
    const limited = await upload(free, notAnImage);
    problemOf(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Per member: someone else still uploads.
    const someoneElse = await createMemberWithSession(app);
    const api = contractClient(app, { token: someoneElse.token });
    const file = new File([new Uint8Array(await solid(4, 4, 'png'))], 'x.png', { type: 'image/png' });
    bodyOf(await api.board.uploadImage({ body: { file } }), 201);
  });
});

describe('image fetch: GET /api/images/{id}', () => {
  test('is public and cacheable for a year, with its type, nosniff, an ETag and no script rights', async ({
    app,
    free,
  }) => {
    const id = await uploaded(free, await solid(20, 20, 'webp'));
    const response = await app.inject({ method: 'GET', url: `/api/images/${id}` });
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({
      'content-type': 'image/webp',
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      etag: `"${id}"`,
      'cross-origin-resource-policy': 'cross-origin',
    });
    expect(response.headers['content-security-policy']).toMatch(/default-src 'none'.*; sandbox$/);
    expect(Number(response.headers['content-length'])).toBe(response.rawPayload.length);
    expect((await sharp(response.rawPayload).metadata()).format).toBe('webp');
  });

  test('answers 304 without a body when If-None-Match names the ETag', async ({ app, free }) => {
    const id = await uploaded(free, await solid(20, 20, 'png'));
    const response = await app.inject({
      method: 'GET',
      url: `/api/images/${id}`,
      headers: { 'if-none-match': `"other", "${id}"` },
    });
    expect(response.statusCode).toBe(304);
    expect(response.rawPayload.length).toBe(0);
    expect(response.headers).toMatchObject({ etag: `"${id}"`, 'cache-control': 'public, max-age=31536000, immutable' });
    const stale = await app.inject({ method: 'GET', url: `/api/images/${id}`, headers: { 'if-none-match': '"x"' } });
    expect(stale.statusCode).toBe(200);
  });

  test('answers 404 for an unknown id (never cached), 400 for a malformed one', async ({ app, anonymous }) => {
    const missing = await anonymous.board.getImage({ params: { id: 'AAAAAAAAAAAAAAAA' } });
    problemOf(missing, 404, 'NOT_FOUND');
    expect(missing.headers.get('cache-control')).toBe('no-store');
    const conditional = await app.inject({
      method: 'GET',
      url: '/api/images/AAAAAAAAAAAAAAAA',
      headers: { 'if-none-match': '"AAAAAAAAAAAAAAAA"' },
    });
    expect(conditional.statusCode).toBe(404);
    problemOf(await anonymous.board.getImage({ params: { id: 'not.an.id' } }), 400, 'VALIDATION_FAILED');
  });
});
