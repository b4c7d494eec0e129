/**
 * Untrusted image uploads (profile picture, board images). Nothing a client sends is stored: the upload
 * is decoded in full and a fresh copy is encoded, so the stored bytes are only what the encoder wrote —
 * no trailing data, no polyglot payload, no metadata.
 */
import sharp, { type Sharp, type SharpOptions } from 'sharp';
import { BadRequestError } from './errors.js';

/** What one use of images accepts, and how large its stored copy may be. */
export interface ImageBounds {
  /** Largest upload, in bytes. */
  maxInputBytes: number;
  /** Largest width × height of the upload (its first frame), read from the header before decoding. */
  maxInputPixels: number;
  /** The stored copy fits in a square of this side; smaller images are not enlarged. */
  maxOutputSide: number;
  /** Largest stored copy, in bytes: re-encoding can grow a file (a palette PNG comes back as truecolour). */
  maxOutputBytes: number;
  /**
   * Keep animated GIF and WebP images whole, with at most this many frames (all of them count toward
   * `maxInputPixels`); without it only the first frame is kept.
   */
  maxFrames?: number;
}

export type StoredImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export interface ReencodedImage {
  bytes: Buffer;
  contentType: StoredImageType;
  /** Size of one frame. */
  width: number;
  height: number;
  /** 1 for a still image. */
  frames: number;
}

type InputFormat = 'png' | 'jpeg' | 'gif' | 'webp';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Only bytes that start like one of the four formats ever reach libvips, so its other loaders (SVG,
 * TIFF, HEIF, …) never parse untrusted input. What sharp then detects must be the same format.
 */
const startsLike: Record<InputFormat, (bytes: Buffer) => boolean> = {
  png: (bytes) => bytes.subarray(0, 8).equals(PNG_SIGNATURE),
  jpeg: (bytes) => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff,
  gif: (bytes) => ['GIF87a', 'GIF89a'].includes(bytes.subarray(0, 6).toString('latin1')),
  webp: (bytes) =>
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP',
};

interface Encoder {
  contentType: StoredImageType;
  encode: (image: Sharp) => Sharp;
}

/** Lossless stays lossless (a still GIF becomes a PNG); photos stay lossy. */
const encoders: Record<InputFormat, Encoder> = {
  png: { contentType: 'image/png', encode: (image) => image.png({ compressionLevel: 9 }) },
  gif: { contentType: 'image/png', encode: (image) => image.png({ compressionLevel: 9 }) },
  jpeg: { contentType: 'image/jpeg', encode: (image) => image.jpeg({ quality: 82 }) },
  webp: { contentType: 'image/webp', encode: (image) => image.webp({ quality: 82 }) },
};

/** An animation stays in its format (frame delays and loop count are kept). */
const animationEncoders: Partial<Record<InputFormat, Encoder>> = {
  gif: { contentType: 'image/gif', encode: (image) => image.gif() },
  webp: encoders.webp,
};

/**
 * Each decode holds a thread of libuv's pool (4 by default), which password hashing and file access
 * share; two at a time leaves them room and bounds the memory of decoded pixels.
 */
const MAX_CONCURRENT_DECODES = 2;
/** Far above what the pixel bound costs (well under a second); only a pathological file gets here. */
const DECODE_TIMEOUT_SECONDS = 10;

/**
 * Decodes untrusted bytes completely and returns a re-encoded copy: EXIF orientation applied, all
 * metadata dropped, only the first frame of an animation (unless `maxFrames` keeps them all), fitted
 * inside `maxOutputSide`, at most `maxOutputBytes`.
 * Throws 400 `IMAGE_TOO_LARGE` over a bound, 400 `INVALID_IMAGE` for anything else that is not a
 * complete PNG, JPEG, GIF or WebP image.
 */
export async function reencodeImage(untrusted: Buffer, bounds: ImageBounds): Promise<ReencodedImage> {
  if (untrusted.length > bounds.maxInputBytes) throw tooManyBytes(bounds.maxInputBytes);
  const format = formatFromSignature(untrusted);
  return withDecodeSlot(async () => {
    const frames = await checkHeader(untrusted, format, bounds);
    const image = await reencode(untrusted, format, bounds, frames);
    if (image.bytes.length > bounds.maxOutputBytes) throw tooManyBytes(bounds.maxOutputBytes);
    return image;
  });
}

function formatFromSignature(bytes: Buffer): InputFormat {
  const format = (Object.keys(startsLike) as InputFormat[]).find((candidate) => startsLike[candidate](bytes));
  if (!format) throw invalidImage();
  return format;
}

/** Checks the header against the bounds; returns how many frames to keep. */
async function checkHeader(untrusted: Buffer, expected: InputFormat, bounds: ImageBounds): Promise<number> {
  // Reading the header allocates no pixels, so sharp's own pixel limit is lifted here: the bound is
  // checked below, where exceeding it can be told apart from a broken file.
  const header = await sharp(untrusted, { limitInputPixels: false })
    .metadata()
    .catch((error: unknown) => {
      throw invalidImage(error);
    });
  if (header.format !== expected) throw invalidImage();
  const frames = bounds.maxFrames && animationEncoders[expected] ? (header.pages ?? 1) : 1;
  if (frames > (bounds.maxFrames ?? 1)) {
    throw new BadRequestError('IMAGE_TOO_LARGE', `An animation may have at most ${bounds.maxFrames} frames.`);
  }
  if (header.width * (header.pageHeight ?? header.height) * frames > bounds.maxInputPixels) {
    throw new BadRequestError('IMAGE_TOO_LARGE', `The image must have at most ${bounds.maxInputPixels} pixels.`);
  }
  return frames;
}

async function reencode(
  untrusted: Buffer,
  format: InputFormat,
  bounds: ImageBounds,
  frames: number,
): Promise<ReencodedImage> {
  const { contentType, encode } = (frames > 1 ? animationEncoders[format] : undefined) ?? encoders[format];
  const image = sharp(untrusted, decodeOptions(bounds, frames))
    .resize({ width: bounds.maxOutputSide, height: bounds.maxOutputSide, fit: 'inside', withoutEnlargement: true })
    .timeout({ seconds: DECODE_TIMEOUT_SECONDS });
  // Without keepMetadata/withMetadata sharp writes no EXIF, XMP, ICC or text chunks (colours are
  // converted to sRGB first).
  const { data, info } = await encode(image)
    .toBuffer({ resolveWithObject: true })
    .catch((error: unknown) => {
      throw invalidImage(error);
    });
  const frameHeight = info.pageHeight ?? info.height;
  return { bytes: data, contentType, width: info.width, height: frameHeight, frames: info.pages ?? 1 };
}

function decodeOptions(bounds: ImageBounds, frames: number): SharpOptions {
  return {
    // 'error' refuses truncated data and bad checksums; 'warning' would also refuse common, harmless
    // files (e.g. libpng's "known incorrect sRGB profile"), and the copy is re-encoded anyway.
    failOn: 'error',
    limitInputPixels: bounds.maxInputPixels,
    autoOrient: true,
    ...(frames > 1 ? { animated: true } : { pages: 1, page: 0 }),
  };
}

function invalidImage(cause?: unknown): BadRequestError {
  const error = new BadRequestError('INVALID_IMAGE', 'Send a complete PNG, JPEG, GIF or WebP image.');
  if (cause !== undefined) error.cause = cause;
  return error;
}

function tooManyBytes(maxBytes: number): BadRequestError {
  const size = maxBytes >= 1024 ? `${Math.floor(maxBytes / 1024)} KB` : `${maxBytes} bytes`;
  return new BadRequestError('IMAGE_TOO_LARGE', `The image must be at most ${size}.`);
}

/** How libvips runs in this process: its threads per image and its operation cache (decision DL20). */
export interface ImageProcessingSettings {
  /** `IMAGE_THREADS`: libvips threads working on one image. */
  threads: number;
  /** `IMAGE_CACHE_MB`: libvips' operation cache; 0 turns it off. */
  cacheMb: number;
}

/**
 * Sets libvips' process-wide settings; the api calls it once as it starts (every call sets both again). sharp's
 * own defaults depend on the allocator: one thread per image under glibc's malloc, but as many as the machine has
 * cores once `MALLOC_ARENA_MAX` is set or jemalloc is loaded, each thread with its own arena and buffers; and a
 * 50 MB cache of operations that uploads, each new bytes, never hit.
 */
export function configureImageProcessing({ threads, cacheMb }: ImageProcessingSettings): void {
  sharp.concurrency(threads);
  if (cacheMb === 0) sharp.cache(false);
  else sharp.cache({ memory: cacheMb, files: 0, items: 100 });
}

let runningDecodes = 0;
const waitingDecodes: (() => void)[] = [];

async function withDecodeSlot<T>(work: () => Promise<T>): Promise<T> {
  await acquireDecodeSlot();
  try {
    return await work();
  } finally {
    releaseDecodeSlot();
  }
}

function acquireDecodeSlot(): Promise<void> {
  if (runningDecodes < MAX_CONCURRENT_DECODES) {
    runningDecodes += 1;
    return Promise.resolve();
  }
  return new Promise((resolve) => waitingDecodes.push(resolve));
}

/** Hands the slot straight to the next waiter, so a newcomer cannot overtake the queue. */
function releaseDecodeSlot(): void {
  const next = waitingDecodes.shift();
  if (next) next();
  else runningDecodes -= 1;
}
