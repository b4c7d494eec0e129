/** Receipt text recognition (premium). */
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { FileFieldSchema, meta, problems, routerOptions, withCommonProblems } from '../common.js';
import type { NamedSchemas } from '../schema-names.js';
import { text } from '../text.js';

const c = initContract();

/** Upload limit of the receipt image (multipart). */
export const RECEIPT_MAX_BYTES = 10 * 1024 * 1024;

export const ReceiptRequestSchema = z.object({
  file: FileFieldSchema.describe('Receipt image (JPEG, PNG, WebP…), at most 10 MB'),
});
export type ReceiptRequest = z.infer<typeof ReceiptRequestSchema>;
export const ReceiptTextSchema = z.object({ text: text().describe('Full recognized text') });
export type ReceiptText = z.infer<typeof ReceiptTextSchema>;

export const receiptsContract = withCommonProblems(
  c.router(
    {
      recognize: {
        method: 'POST',
        path: '/api/account/ocr/receipt',
        summary: 'Recognize the text of a receipt image (503 when recognition is not configured)',
        description:
          'One multipart field `file`: a PNG, JPEG, GIF or WebP image of at most 10 MB (413 beyond), decoded in full ' +
          '(400 `INVALID_IMAGE` otherwise). Each member has a daily number of recognitions (429 ' +
          '`RECEIPT_QUOTA_EXCEEDED` with `Retry-After` until the next day) and a per-minute rate (429 `RATE_LIMITED`). ' +
          '503 `PROVIDER_NOT_CONFIGURED` without a recognition key, `PROVIDER_UNAVAILABLE` when the provider fails.',
        contentType: 'multipart/form-data',
        body: ReceiptRequestSchema,
        responses: {
          200: ReceiptTextSchema,
          ...problems(
            'RATE_LIMITED',
            'RECEIPT_QUOTA_EXCEEDED',
            'INVALID_IMAGE',
            'IMAGE_TOO_LARGE',
            'PROVIDER_NOT_CONFIGURED',
            'PROVIDER_UNAVAILABLE',
          ),
        },
        metadata: meta('premium'),
      },
    },
    routerOptions,
  ),
);

/** Component names of receipt recognition (see schema-names.ts). */
export const receiptsNamedSchemas: NamedSchemas = {
  ReceiptText: ReceiptTextSchema,
};
