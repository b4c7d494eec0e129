import { BOARD_IMAGE_MAX_BYTES } from '@nestegg/contract';
import { type ImageBounds, type ReencodedImage, reencodeImage } from '../../../lib/images.js';

/** A 48-megapixel phone photo fits; a decompression bomb does not. Frames of an animation add up. */
export const BOARD_IMAGE_MAX_INPUT_PIXELS = 50_000_000;
/** Sharp across a post on a 3× screen; larger uploads are scaled down, smaller ones never enlarged. */
export const BOARD_IMAGE_MAX_SIDE = 2048;
/** Longest animation kept (a 10-second GIF at 30 frames per second). */
export const BOARD_IMAGE_MAX_FRAMES = 300;
/** Largest stored copy: re-encoding can grow a file (a palette PNG comes back as truecolour). */
export const BOARD_IMAGE_MAX_STORED_BYTES = 8 * 1024 * 1024;

const bounds: ImageBounds = {
  maxInputBytes: BOARD_IMAGE_MAX_BYTES,
  maxInputPixels: BOARD_IMAGE_MAX_INPUT_PIXELS,
  maxOutputSide: BOARD_IMAGE_MAX_SIDE,
  maxOutputBytes: BOARD_IMAGE_MAX_STORED_BYTES,
  maxFrames: BOARD_IMAGE_MAX_FRAMES,
};

/**
 * The copy of an uploaded board image that is stored and served, made as the profile picture is
 * (`reencodeImage`: decoded in full, orientation applied, all metadata dropped), except that animated GIF
 * and WebP images keep their frames. Throws 400 `INVALID_IMAGE` for anything that is not a complete PNG,
 * JPEG, GIF or WebP image, `IMAGE_TOO_LARGE` past a bound.
 */
export function boardImageToStore(untrusted: Buffer): Promise<ReencodedImage> {
  return reencodeImage(untrusted, bounds);
}
