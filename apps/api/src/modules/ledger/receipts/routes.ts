import { contract, RECEIPT_MAX_BYTES } from '@nestegg/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { sessionOf } from '../../../lib/session.js';
import { acceptUploads, readSingleFile, uploadedBytes } from '../../../plugins/multipart.js';

/** Receipt text recognition (`POST /api/account/ocr/receipt`); premium (the contract's metadata guards it). */
export default async function receiptsModule(app: FastifyInstance): Promise<void> {
  await acceptUploads(app);
  const { receipts } = app.services;
  registerContractRouter(app, contract.ledger.receipts, {
    recognize: {
      hooks: {
        // After the guard (an app-level hook), so the limit is per member and FREE members never count.
        onRequest: app.rateLimit({
          max: app.env.OCR_RATE_LIMIT_PER_MINUTE,
          timeWindow: '1 minute',
          keyGenerator: (request) => `receipt:${request.session?.memberId ?? request.ip}`,
        }),
        // The contract's body check then sees the file. The upload is read and checked even when recognition
        // is not set up: input is judged before configuration (decision FI4).
        preValidation: async (request: FastifyRequest) => {
          request.body = { file: await readSingleFile(request, { field: 'file', maxBytes: RECEIPT_MAX_BYTES }) };
        },
      },
      handler: async ({ body, request }) => ({
        status: 200,
        body: { text: await receipts.recognize(sessionOf(request).memberId, uploadedBytes(body.file)) },
      }),
    },
  });
}
