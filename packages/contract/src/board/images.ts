/** Board images: upload, and the public image route. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { FileFieldSchema, meta, problems, routerOptions, withCommonProblems } from '../common.js';
import { text } from '../text.js';

const c = initContract();

export const ImageUploadRequestSchema = z.object({
  file: FileFieldSchema.describe('PNG, JPEG, GIF or WebP (animations kept), at most 5 MB'),
});
export type ImageUploadRequest = z.infer<typeof ImageUploadRequestSchema>;
export const ImageUploadResponseSchema = z.object({
  url: text()
    .url()
    .describe('Absolute URL under the public address, e.g. https://…/api/images/{id} (the id: 16 url-safe characters)'),
});
export type ImageUploadResponse = z.infer<typeof ImageUploadResponseSchema>;

export const ImageIdParamSchema = z.object({
  id: text().regex(/^[A-Za-z0-9_-]{1,64}$/, 'not an image id'),
});
export type ImageIdParam = z.infer<typeof ImageIdParamSchema>;

/** Image routes. */
export const imagesContract = withCommonProblems(
  c.router(
    {
      uploadImage: {
        method: 'POST',
        path: '/api/board/images',
        summary: 'Upload an image for a post body; returns its short absolute URL',
        description:
          'Upload an image for a post or comment body; returns its short absolute URL. The image is decoded and ' +
          're-encoded (metadata dropped; animated GIF and WebP keep their frames). Uploads count against a ' +
          'per-member quota over 24 hours (429 `IMAGE_QUOTA_EXCEEDED`) and a per-minute rate limit (429 ' +
          '`RATE_LIMITED`). An image no post or comment shows is deleted after a grace period.',
        contentType: 'multipart/form-data',
        body: ImageUploadRequestSchema,
        responses: {
          201: ImageUploadResponseSchema,
          ...problems('RATE_LIMITED', 'IMAGE_QUOTA_EXCEEDED', 'INVALID_IMAGE', 'IMAGE_TOO_LARGE'),
        },
        metadata: meta('login'),
      },
      getImage: {
        method: 'GET',
        path: '/api/images/:id',
        summary: 'Image bytes (Cache-Control: public, max-age=31536000, immutable)',
        description:
          'Image bytes with their stored type, cached for a year (`Cache-Control: public, max-age=31536000, ' +
          'immutable`) and an `ETag`; a request whose `If-None-Match` names it answers 304 without a body.',
        pathParams: ImageIdParamSchema,
        responses: { 200: z.any().describe('Image bytes'), 304: c.noBody() },
        metadata: meta('public', { binaryResponse: 'image/*' }),
      },
    },
    routerOptions,
  ),
);
