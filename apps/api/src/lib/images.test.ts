import { crc32, deflateSync } from 'node:zlib';
import sharp, { type FormatEnum } from 'sharp';
import { describe, expect, it } from 'vitest';
import { configureImageProcessing, type ImageBounds, reencodeImage } from './images.js';

const bounds: ImageBounds = {
  maxInputBytes: 256 * 1024,
  maxInputPixels: 4096 * 4096,
  maxOutputSide: 512,
  maxOutputBytes: 256 * 1024,
};
const SCRIPT = '<script>alert(1)</script>';
const MARK = 'SECRET-METADATA-MARK';

function solid(width: number, height: number, format: keyof FormatEnum, colour = '#33aa77'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .toFormat(format)
    .toBuffer();
}

/** A PNG whose image data is large enough to cut in the middle. */
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

function pngChunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, checksum]);
}

/** A valid one-bit PNG of one colour: a few dozen KB that would decode to `width × height` pixels. */
function decompressionBomb(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 1; // bit depth; colour type 0 (grey), no interlace
  const rows = Buffer.alloc((1 + Math.ceil(width / 8)) * height);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(rows, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function withBadChecksum(png: Buffer): Buffer {
  const copy = Buffer.from(png);
  const data = copy.indexOf('IDAT', 0, 'latin1');
  const checksumAt = data + 4 + copy.readUInt32BE(data - 4);
  copy[checksumAt] = copy[checksumAt]! ^ 0xff;
  return copy;
}

/** A real GIF whose comment block carries a script: decodes fine, and is also "JavaScript". */
async function gifWithScriptComment(): Promise<Buffer> {
  const gif = await solid(4, 4, 'gif');
  const comment = Buffer.concat([Buffer.from([0x21, 0xfe, SCRIPT.length]), Buffer.from(SCRIPT), Buffer.from([0])]);
  return Buffer.concat([gif.subarray(0, -1), comment, gif.subarray(-1)]);
}

async function animated(format: 'gif' | 'webp'): Promise<Buffer> {
  const frames = await Promise.all([solid(16, 16, 'png', '#ff0000'), solid(16, 16, 'png', '#0000ff')]);
  return sharp(frames, { join: { animated: true } })
    .toFormat(format)
    .toBuffer();
}

function expectRefusal(input: Buffer, code: 'INVALID_IMAGE' | 'IMAGE_TOO_LARGE', limits = bounds) {
  return expect(reencodeImage(input, limits)).rejects.toMatchObject({ status: 400, code });
}

describe('reencodeImage', () => {
  it.each([
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
    ['gif', 'image/png'],
    ['webp', 'image/webp'],
  ] as const)('re-encodes a %s image as %s', async (format, contentType) => {
    const input = await solid(40, 30, format);
    const image = await reencodeImage(input, bounds);
    expect(image).toMatchObject({ contentType, width: 40, height: 30 });
    expect(image.bytes.equals(input)).toBe(false);
    const stored = await sharp(image.bytes).metadata();
    expect(`image/${stored.format}`).toBe(contentType);
    expect([stored.width, stored.height]).toEqual([40, 30]);
  });

  it.each<[string, () => Promise<Buffer> | Buffer]>([
    ['a truncated PNG', truncatedPng],
    ['a bare PNG signature', () => Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
    ['a PNG with a bad checksum', async () => withBadChecksum(await noisyPng())],
    ['a GIF/JavaScript polyglot', () => Buffer.from('GIF89a/*\x01\x00\x01\x00\x00\x00\x00*/=alert(1);//', 'latin1')],
    ['JPEG magic followed by HTML', () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(SCRIPT)])],
    ['a WebP header followed by a script', () => Buffer.from(`RIFF\x40\x00\x00\x00WEBPVP8 ${SCRIPT}`, 'latin1')],
    ['a truncated JPEG', async () => (await solid(64, 64, 'jpeg')).subarray(0, -20)],
    ['an SVG, which sharp could render', () => Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg">${SCRIPT}</svg>`)],
    ['a TIFF, which sharp could decode', () => solid(8, 8, 'tiff')],
    ['HTML', () => Buffer.from(`<html>${SCRIPT}</html>`)],
    ['nothing', () => Buffer.alloc(0)],
  ])('refuses %s as INVALID_IMAGE', async (_, input) => {
    await expectRefusal(await input(), 'INVALID_IMAGE');
  });

  it.each(['png', 'jpeg', 'gif', 'webp'] as const)('drops data appended after the end of a %s', async (format) => {
    const input = Buffer.concat([await solid(20, 20, format), Buffer.from(`<html>${SCRIPT}</html>`)]);
    const image = await reencodeImage(input, bounds);
    expect(image.bytes.includes(SCRIPT)).toBe(false);
    expect(image.width).toBe(20);
  });

  it('keeps only the pixels of a GIF that is also valid JavaScript', async () => {
    const input = await gifWithScriptComment();
    expect(input.includes(SCRIPT)).toBe(true);
    const image = await reencodeImage(input, bounds);
    expect(image.contentType).toBe('image/png');
    expect(image.bytes.includes(SCRIPT)).toBe(false);
  });

  it.each(['jpeg', 'png', 'webp'] as const)('strips EXIF (incl. GPS) and XMP from a %s', async (format) => {
    const input = await sharp({ create: { width: 12, height: 12, channels: 3, background: '#123456' } })
      .toFormat(format)
      .withExif({ IFD0: { ImageDescription: MARK }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' } })
      .withXmp(`<x:xmpmeta xmlns:x="adobe:ns:meta/">${MARK}</x:xmpmeta>`)
      .toBuffer();
    expect((await sharp(input).metadata()).exif).toBeDefined();
    const image = await reencodeImage(input, bounds);
    const stored = await sharp(image.bytes).metadata();
    expect([stored.exif, stored.xmp, stored.icc, stored.iptc]).toEqual([undefined, undefined, undefined, undefined]);
    expect(image.bytes.includes(MARK)).toBe(false);
  });

  it('turns the picture as its EXIF orientation says before dropping the tag', async () => {
    const input = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#00ff00' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const image = await reencodeImage(input, bounds);
    expect([image.width, image.height]).toEqual([20, 40]);
    expect((await sharp(image.bytes).metadata()).orientation).toBeUndefined();
  });

  it.each(['gif', 'webp'] as const)('keeps only the first frame of an animated %s', async (format) => {
    const input = await animated(format);
    expect((await sharp(input).metadata()).pages).toBe(2);
    const image = await reencodeImage(input, bounds);
    const stored = sharp(image.bytes);
    expect((await stored.metadata()).pages ?? 1).toBe(1);
    expect([image.width, image.height]).toEqual([16, 16]);
    const { dominant } = await stored.stats();
    expect(dominant.r).toBeGreaterThan(200);
    expect(dominant.b).toBeLessThan(50);
  });

  it('refuses a decompression bomb from its header, quickly', async () => {
    const bomb = decompressionBomb(20_000, 20_000);
    expect(bomb.length).toBeLessThan(bounds.maxInputBytes);
    const started = performance.now();
    await expectRefusal(bomb, 'IMAGE_TOO_LARGE');
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('refuses more pixels than the bound even when the image would decode', async () => {
    await expectRefusal(await solid(100, 100, 'png'), 'IMAGE_TOO_LARGE', { ...bounds, maxInputPixels: 99 * 100 });
  });

  it('refuses more bytes than the bound before looking at them', async () => {
    const input = await solid(10, 10, 'png');
    await expectRefusal(input, 'IMAGE_TOO_LARGE', { ...bounds, maxInputBytes: input.length - 1 });
    await expectRefusal(Buffer.alloc(bounds.maxInputBytes + 1), 'IMAGE_TOO_LARGE');
  });

  it('refuses an image whose re-encoded copy is over the output byte bound', async () => {
    const noisy = await noisyPng();
    await expectRefusal(noisy, 'IMAGE_TOO_LARGE', { ...bounds, maxOutputBytes: noisy.length / 2 });
  });

  it('fits the copy inside the output bound, keeping the aspect ratio, and never enlarges', async () => {
    const large = await reencodeImage(await solid(2000, 1000, 'png'), bounds);
    expect([large.width, large.height]).toEqual([512, 256]);
    expect(await sharp(large.bytes).metadata()).toMatchObject({ width: 512, height: 256 });
    const small = await reencodeImage(await solid(30, 60, 'jpeg'), bounds);
    expect([small.width, small.height]).toEqual([30, 60]);
  });

  it('serves many uploads at once, refused ones included', async () => {
    const good = await solid(50, 50, 'webp');
    const bad = await truncatedPng();
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, index) => reencodeImage(index % 3 === 0 ? bad : good, bounds)),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(8);
    expect(results.filter((result) => result.status === 'rejected')).toHaveLength(4);
    expect((await reencodeImage(good, bounds)).width).toBe(50);
  });
});

describe('reencodeImage with maxFrames (board images)', () => {
  const animatedBounds: ImageBounds = { ...bounds, maxFrames: 5 };

  it.each([
    ['gif', 'image/gif'],
    ['webp', 'image/webp'],
  ] as const)('keeps every frame of an animated %s as %s', async (format, contentType) => {
    const image = await reencodeImage(await animated(format), animatedBounds);
    expect(image).toMatchObject({ contentType, width: 16, height: 16, frames: 2 });
    expect((await sharp(image.bytes).metadata()).pages).toBe(2);
  });

  it('still turns a single-frame GIF into a PNG', async () => {
    expect(await reencodeImage(await solid(8, 8, 'gif'), animatedBounds)).toMatchObject({
      contentType: 'image/png',
      frames: 1,
    });
  });

  it('counts the pixels of every frame, and refuses more frames than the bound', async () => {
    const twoFrames = await animated('gif'); // 2 × 16 × 16 = 512 pixels
    await expectRefusal(twoFrames, 'IMAGE_TOO_LARGE', { ...animatedBounds, maxInputPixels: 500 });
    expect((await reencodeImage(twoFrames, { ...bounds, maxInputPixels: 500 })).frames).toBe(1);
    await expectRefusal(twoFrames, 'IMAGE_TOO_LARGE', { ...animatedBounds, maxFrames: 1 });
  });
});

describe('configureImageProcessing (decision DL20)', () => {
  it('sets libvips threads per image and its cache, whatever sharp chose from the allocator', () => {
    const before = { threads: sharp.concurrency(), cache: sharp.cache() };
    try {
      configureImageProcessing({ threads: 3, cacheMb: 0 });
      expect(sharp.concurrency()).toBe(3);
      expect(sharp.cache()).toMatchObject({ memory: { max: 0 }, files: { max: 0 }, items: { max: 0 } });
      configureImageProcessing({ threads: 1, cacheMb: 20 });
      expect(sharp.concurrency()).toBe(1);
      expect(sharp.cache()).toMatchObject({ memory: { max: 20 }, files: { max: 0 }, items: { max: 100 } });
    } finally {
      sharp.concurrency(before.threads);
      sharp.cache({ memory: before.cache.memory.max, files: before.cache.files.max, items: before.cache.items.max });
    }
  });
});
