import { BadRequestError } from '../../lib/errors.js';

const signatures: Record<string, (bytes: Buffer) => boolean> = {
  'image/png': (bytes) => bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (bytes) => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff,
  'image/gif': (bytes) => ['GIF87a', 'GIF89a'].includes(bytes.subarray(0, 6).toString('latin1')),
  'image/webp': (bytes) =>
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP',
};

/**
 * Accepts a data URL only when its bytes really are an image of the declared, allowed type and
 * within the size limit. Returns the data URL to store, or null for an empty value (clears the picture).
 */
export function validateProfileImage(dataUrl: string, maxBytes: number): string | null {
  if (dataUrl === '') return null;
  const match = /^data:(image\/[a-z]+);base64,([A-Za-z0-9+/]+={0,2})$/.exec(dataUrl);
  const type = match?.[1];
  const looksLike = type ? signatures[type] : undefined;
  if (!match || !looksLike) {
    throw new BadRequestError('INVALID_IMAGE', 'Send a PNG, JPEG, GIF or WebP image as a base64 data URL.');
  }
  const bytes = Buffer.from(match[2]!, 'base64');
  if (bytes.length > maxBytes) {
    throw new BadRequestError('IMAGE_TOO_LARGE', `The image must be at most ${Math.floor(maxBytes / 1024)} KB.`);
  }
  if (!looksLike(bytes)) {
    throw new BadRequestError('INVALID_IMAGE', `The data is not a ${type} image.`);
  }
  return dataUrl;
}
