import { crc32, deflateSync } from 'node:zlib';
import { member, pointHistory } from '@nestegg/db';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import sharp, { type FormatEnum } from 'sharp';
import { describe, expect } from 'vitest';
import { signUpAndLogIn } from '../../../test/auth-helpers.js';
import { type ApiClient, bodyOf, contractClient, problemOf } from '../../../test/client.js';
import { apiTest } from '../../../test/fixtures.js';

// A real 1×1 PNG.
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const MAX_BYTES = 64 * 1024;
const SCRIPT = '<script>alert(1)</script>';
const MARK = 'SECRET-METADATA-MARK';

function solid(width: number, height: number, format: keyof FormatEnum): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#33aa77' } })
    .toFormat(format)
    .toBuffer();
}

async function truncatedPng(): Promise<Buffer> {
  const png = await noisyPng();
  return png.subarray(0, Math.floor(png.length / 2));
}

function noisyPng(): Promise<Buffer> {
  const pixels = Buffer.from(Array.from({ length: 64 * 64 * 3 }, (_, index) => (index * 7919) % 251));
  return sharp(pixels, { raw: { width: 64, height: 64, channels: 3 } })
    .png()
    .toBuffer();
}

function withBadChecksum(png: Buffer): Buffer {
  const copy = Buffer.from(png);
  const data = copy.indexOf('IDAT', 0, 'latin1');
  const checksumAt = data + 4 + copy.readUInt32BE(data - 4);
  copy[checksumAt] = copy[checksumAt]! ^ 0xff;
  return copy;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, checksum]);
}

/** A valid one-bit PNG of one colour: about 48 KB that would decode to 20000 × 20000 pixels. */
function decompressionBomb(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(20_000, 0);
  header.writeUInt32BE(20_000, 4);
  header[8] = 1; // bit depth; colour type 0 (grey), no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.alloc(2501 * 20_000), { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function withMetadata(format: 'png' | 'jpeg' | 'webp'): Promise<Buffer> {
  return sharp({ create: { width: 12, height: 12, channels: 3, background: '#123456' } })
    .toFormat(format)
    .withExif({ IFD0: { ImageDescription: MARK }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' } })
    .toBuffer();
}

const dataUrl = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;

function storedImage(profileImage: string): { type: string; bytes: Buffer } {
  const [, type, base64] = /^data:(image\/[a-z]+);base64,(.+)$/.exec(profileImage) ?? [];
  if (!type || !base64) throw new Error(`not a data URL: ${profileImage.slice(0, 40)}`);
  return { type, bytes: Buffer.from(base64, 'base64') };
}

/** A member signed up through the api, with a client that sends its token. */
async function signedUp(app: FastifyInstance, options: { displayName?: string } = {}) {
  const member = await signUpAndLogIn(app, options);
  return { ...member, api: contractClient(app, { token: member.token }) };
}

const putImage = (api: ApiClient, value: string) => api.auth.updateProfileImage({ body: { dataUrl: value } });
const profileOf = async (api: ApiClient) => bodyOf(await api.auth.getProfile(), 200);

const test = apiTest({ PROFILE_IMAGE_MAX_BYTES: String(MAX_BYTES) });

describe('profile, picture and points', () => {
  test('shows the latest state without a new login', async ({ app }) => {
    const { api, member: created } = await signedUp(app);
    await app.db.update(member).set({ points: 42, plan: 'PREMIUM' }).where(eq(member.id, created.id));
    const profile = await profileOf(api);
    expect(profile).toMatchObject({
      id: created.id,
      points: 42,
      plan: 'PREMIUM',
      idpOnePicture: null,
      profileImage: null,
    });
    expect(profile).not.toHaveProperty('passwordHash');
  });

  test('updates the display name', async ({ app }) => {
    const { api } = await signedUp(app, { displayName: 'Old' });
    const response = await api.auth.updateProfile({ body: { displayName: '  New name ' } });
    expect(bodyOf(response, 200).displayName).toBe('New name');
    expect((await profileOf(api)).displayName).toBe('New name');
  });

  test('stores a re-encoded copy of a real image as a data URL and clears it with an empty value', async ({ app }) => {
    const { api } = await signedUp(app);
    const set = bodyOf(await putImage(api, `data:image/png;base64,${PNG_1X1}`), 200);
    const stored = storedImage(set.profileImage!);
    expect(stored.type).toBe('image/png');
    expect(await sharp(stored.bytes).metadata()).toMatchObject({ format: 'png', width: 1, height: 1 });
    expect((await profileOf(api)).profileImage).toBe(set.profileImage);
    const cleared = bodyOf(await putImage(api, ''), 200);
    expect(cleared.profileImage).toBeNull();
  });

  test('refuses data that is not an image, and images over the byte limit', async ({ app }) => {
    const { api } = await signedUp(app);
    const fake = Buffer.from('<svg onload="alert(1)"></svg>');
    problemOf(await putImage(api, dataUrl('image/png', fake)), 400, 'INVALID_IMAGE');
    const svg = await putImage(api, dataUrl('image/svg+xml', fake));
    expect(svg.status).toBe(400);
    const big = Buffer.concat([Buffer.from(PNG_1X1, 'base64'), Buffer.alloc(MAX_BYTES)]);
    problemOf(await putImage(api, dataUrl('image/png', big)), 400, 'IMAGE_TOO_LARGE');
  });

  test.for<[string, () => Promise<Buffer> | Buffer]>([
    ['a truncated PNG', truncatedPng],
    ['a bare PNG signature', () => Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
    ['a PNG with a bad checksum', async () => withBadChecksum(await noisyPng())],
    ['a GIF/JavaScript polyglot', () => Buffer.from('GIF89a/*\x01\x00\x01\x00\x00\x00\x00*/=alert(1);//', 'latin1')],
    ['JPEG magic followed by HTML', () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(SCRIPT)])],
    ['a WebP header followed by a script', () => Buffer.from(`RIFF\x40\x00\x00\x00WEBPVP8 ${SCRIPT}`, 'latin1')],
    ['an SVG', () => Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect/></svg>`)],
  ])('refuses %s with 400 INVALID_IMAGE and keeps the old picture', async ([, bytes], { app }) => {
    const { api } = await signedUp(app);
    const before = bodyOf(await putImage(api, `data:image/png;base64,${PNG_1X1}`), 200).profileImage;
    problemOf(await putImage(api, dataUrl('image/png', await bytes())), 400, 'INVALID_IMAGE');
    expect((await profileOf(api)).profileImage).toBe(before);
  });

  test('stores a PNG with HTML appended without the HTML', async ({ app }) => {
    // Decoders stop at the image's end; the copy holds only what the encoder wrote.
    const { api } = await signedUp(app);
    const withHtml = Buffer.concat([await solid(20, 20, 'png'), Buffer.from(`<html>${SCRIPT}</html>`)]);
    const response = await putImage(api, dataUrl('image/png', withHtml));
    const stored = storedImage(bodyOf(response, 200).profileImage!);
    expect(stored.bytes.includes(SCRIPT)).toBe(false);
    expect(stored.bytes.includes('<html>')).toBe(false);
    expect(await sharp(stored.bytes).metadata()).toMatchObject({ format: 'png', width: 20, height: 20 });
  });

  test.for([
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
    ['webp', 'image/webp'],
  ] as const)('stores a %s as %s without its EXIF or GPS data', async ([format, type], { app }) => {
    const { api } = await signedUp(app);
    const input = await withMetadata(format);
    expect(input.includes(MARK)).toBe(true);
    const response = await putImage(api, dataUrl(type, input));
    const stored = storedImage(bodyOf(response, 200).profileImage!);
    expect(stored.type).toBe(type);
    expect(stored.bytes.includes(MARK)).toBe(false);
    const metadata = await sharp(stored.bytes).metadata();
    expect([metadata.exif, metadata.xmp, metadata.icc]).toEqual([undefined, undefined, undefined]);
  });

  test('stores a GIF as a PNG', async ({ app }) => {
    const { api } = await signedUp(app);
    const response = await putImage(api, dataUrl('image/gif', await solid(30, 20, 'gif')));
    const stored = storedImage(bodyOf(response, 200).profileImage!);
    expect(stored.type).toBe('image/png');
    expect(await sharp(stored.bytes).metadata()).toMatchObject({ format: 'png', width: 30, height: 20 });
  });

  test('stores the real type when the declared one differs', async ({ app }) => {
    const { api } = await signedUp(app);
    const response = await putImage(api, dataUrl('image/gif', await solid(10, 10, 'jpeg')));
    expect(storedImage(bodyOf(response, 200).profileImage!).type).toBe('image/jpeg');
  });

  test('refuses a decompression bomb with IMAGE_TOO_LARGE without decoding it', async ({ app }) => {
    const { api } = await signedUp(app);
    const bomb = decompressionBomb();
    expect(bomb.length).toBeLessThan(MAX_BYTES);
    const started = performance.now();
    const response = await putImage(api, dataUrl('image/png', bomb));
    expect(performance.now() - started).toBeLessThan(2000);
    problemOf(response, 400, 'IMAGE_TOO_LARGE');
  });

  test('stores the avatar at most 512 pixels on its longer side', async ({ app }) => {
    const { api } = await signedUp(app);
    const response = await putImage(api, dataUrl('image/png', await solid(2000, 1000, 'png')));
    const stored = storedImage(bodyOf(response, 200).profileImage!);
    expect(await sharp(stored.bytes).metadata()).toMatchObject({ width: 512, height: 256 });
  });

  test('reports the balance and at most 100 history entries, newest first, of the caller only', async ({ app }) => {
    const owner = await signedUp(app);
    const other = await signedUp(app);
    const base = Date.now() - 200_000;
    await app.db.insert(pointHistory).values(
      Array.from({ length: 105 }, (_, index) => ({
        memberId: owner.member.id,
        amount: index + 1,
        reason: `REASON_${index + 1}`,
        createdAt: new Date(base + index * 1000),
      })),
    );
    await app.db.insert(pointHistory).values({ memberId: other.member.id, amount: 7, reason: 'OTHER' });
    await app.db.update(member).set({ points: 15 }).where(eq(member.id, owner.member.id));

    expect(bodyOf(await owner.api.auth.points(), 200)).toEqual({ points: 15 });
    const history = bodyOf(await owner.api.auth.pointHistory(), 200).items;
    expect(history).toHaveLength(100);
    expect(history[0]!.reason).toBe('REASON_105');
    expect(history.at(-1)!.reason).toBe('REASON_6');
    expect(history.some((item) => item.reason === 'OTHER')).toBe(false);
    expect(bodyOf(await other.api.auth.pointHistory(), 200).items).toHaveLength(1);
  });
});
