import { RECEIPT_MAX_BYTES } from '@nestegg/contract';
import sharp from 'sharp';
import { type ImageBounds, reencodeImage } from '../../../lib/images.js';
import type { RecognizableImage } from './text-recognition.js';

/** A 48-megapixel phone photo fits; a decompression bomb does not. */
export const RECEIPT_MAX_INPUT_PIXELS = 50_000_000;
/** Enough for the small print of a long receipt; larger photos are scaled down before sending. */
export const RECEIPT_MAX_SIDE = 3072;
/** What the provider receives at most (its inline-image request limit is 10 MB of JSON, base64 included). */
export const RECEIPT_MAX_SENT_BYTES = 7 * 1024 * 1024;

const bounds: ImageBounds = {
  maxInputBytes: RECEIPT_MAX_BYTES,
  maxInputPixels: RECEIPT_MAX_INPUT_PIXELS,
  maxOutputSide: RECEIPT_MAX_SIDE,
  // The lossless copy may be large (a PNG photo); it is made lossy below instead of refused.
  maxOutputBytes: 64 * 1024 * 1024,
};

/**
 * The image to send for recognition, made from the upload as the profile picture is (`reencodeImage`:
 * decoded in full, orientation applied, EXIF/GPS and all other metadata dropped, fitted in 3072 px). A
 * copy still over 7 MB (only a lossless one can be) is re-encoded as JPEG. Throws 400 `INVALID_IMAGE` for
 * anything that is not a complete PNG, JPEG, GIF or WebP image, `IMAGE_TOO_LARGE` past the pixel bound.
 */
export async function receiptImageToSend(untrusted: Buffer): Promise<RecognizableImage> {
  const image = await reencodeImage(untrusted, bounds);
  if (image.bytes.length <= RECEIPT_MAX_SENT_BYTES) return { bytes: image.bytes, contentType: image.contentType };
  // Our own encoder's output: safe to decode again.
  const jpeg = await sharp(image.bytes).jpeg({ quality: 85 }).toBuffer();
  return { bytes: jpeg, contentType: 'image/jpeg' };
}
