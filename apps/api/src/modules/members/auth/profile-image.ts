import { BadRequestError } from '../../../lib/errors.js';
import { type ImageBounds, reencodeImage } from '../../../lib/images.js';

/** A 12-megapixel phone photo (4032×3024) fits; a decompression bomb does not. */
export const PROFILE_IMAGE_MAX_INPUT_PIXELS = 4096 * 4096;
/** Sharp at ~170 CSS px on a 3× screen, and small enough to embed beside every board author. */
export const PROFILE_IMAGE_MAX_SIDE = 512;

/** The declared type only has to name an allowed format; what is decoded decides the stored type. */
const IMAGE_DATA_URL = /^data:image\/(?:png|jpeg|gif|webp);base64,([A-Za-z0-9+/]+={0,2})$/;

/**
 * Turns the member's data URL into the data URL to store: a re-encoded copy of the image (see
 * `reencodeImage`), or null for an empty value (clears the picture).
 */
export async function profileImageToStore(dataUrl: string, maxBytes: number): Promise<string | null> {
  if (dataUrl === '') return null;
  const image = await reencodeImage(bytesOfDataUrl(dataUrl), profileImageBounds(maxBytes));
  return `data:${image.contentType};base64,${image.bytes.toString('base64')}`;
}

function profileImageBounds(maxBytes: number): ImageBounds {
  return {
    maxInputBytes: maxBytes,
    maxInputPixels: PROFILE_IMAGE_MAX_INPUT_PIXELS,
    maxOutputSide: PROFILE_IMAGE_MAX_SIDE,
    maxOutputBytes: maxBytes,
  };
}

function bytesOfDataUrl(dataUrl: string): Buffer {
  const base64 = IMAGE_DATA_URL.exec(dataUrl)?.[1];
  if (!base64) {
    throw new BadRequestError('INVALID_IMAGE', 'Send a PNG, JPEG, GIF or WebP image as a base64 data URL.');
  }
  return Buffer.from(base64, 'base64');
}
