/** Board images: upload, and the public image route. */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses, FileFieldSchema, meta, routerOptions } from '../common.js';
import { text } from '../text.js';

const c = initContract();

export const ImageUploadRequestSchema = z.object({
  file: FileFieldSchema.describe('PNG, JPEG, GIF or WebP, at most 5 MB'),
});
export type ImageUploadRequest = z.infer<typeof ImageUploadRequestSchema>;
export const ImageUploadResponseSchema = z.object({
  url: text().url().describe('Absolute URL under the public address, e.g. https://…/api/images/{id}'),
});
export type ImageUploadResponse = z.infer<typeof ImageUploadResponseSchema>;

export const ImageIdParamSchema = z.object({
  id: text().regex(/^[A-Za-z0-9_-]{1,64}$/, 'not an image id'),
});
export type ImageIdParam = z.infer<typeof ImageIdParamSchema>;

/** Image routes. */
export const imagesContract = c.router(
  {
    uploadImage: {
      method: 'POST',
      path: '/api/board/images',
      summary: 'Upload an image for a post body; returns its short absolute URL',
      contentType: 'multipart/form-data',
      body: ImageUploadRequestSchema,
      responses: { 201: ImageUploadResponseSchema, ...errorResponses(400, 401, 413, 415) },
      metadata: meta('login'),
    },
    getImage: {
      method: 'GET',
      path: '/api/images/:id',
      summary: 'Image bytes (Cache-Control: public, max-age=31536000, immutable)',
      pathParams: ImageIdParamSchema,
      responses: { 200: z.any().describe('Image bytes'), ...errorResponses(400, 404) },
      metadata: meta('public', { binaryResponse: 'image/*' }),
    },
  },
  routerOptions,
);
