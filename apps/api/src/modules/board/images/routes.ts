import { BOARD_IMAGE_MAX_BYTES, imagesContract } from '@nestegg/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerContractRouter } from '../../../lib/contract-router.js';
import { NotFoundError } from '../../../lib/errors.js';
import { baselineSecurityHeaders } from '../../../lib/security-headers.js';
import { sessionOf } from '../../../lib/session.js';
import { acceptUploads, readSingleFile, uploadedBytes } from '../../../plugins/multipart.js';

/**
 * What an image answer carries besides its type: a year in any cache (an id never changes its bytes);
 * other sites may embed it (`<img>` from the app's origin); opened on its own it runs nothing (sandbox).
 */
const imageHeaders = {
  'cache-control': 'public, max-age=31536000, immutable',
  'cross-origin-resource-policy': 'cross-origin',
  'content-security-policy': `${baselineSecurityHeaders['content-security-policy']}; sandbox`,
  'x-content-type-options': 'nosniff',
};

/** The strong validator of an image: its id (the bytes behind an id never change). */
const etagOf = (id: string) => `"${id}"`;

function isFresh(request: FastifyRequest, id: string): boolean {
  const tags = request.headers['if-none-match'];
  if (!tags) return false;
  const etag = etagOf(id);
  return tags.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed === etag || trimmed === `W/${etag}`;
  });
}

/** The reply methods used here (ts-rest hands the handler a reply typed for its own route generics). */
interface HeaderSetter {
  header(name: string, value: string): unknown;
  headers(values: Record<string, string>): unknown;
}

function sendAsImage(reply: HeaderSetter, id: string, contentType?: string): void {
  reply.headers({ ...imageHeaders, etag: etagOf(id) });
  if (contentType) reply.header('content-type', contentType);
}

/** Board images: upload (login) and the public image route (`GET /api/images/{id}`). */
export default async function boardImagesModule(app: FastifyInstance): Promise<void> {
  await acceptUploads(app);
  const { boardImages } = app.services;
  registerContractRouter(app, imagesContract, {
    uploadImage: {
      hooks: {
        // After the guard (an app-level hook), so the limit is per member.
        onRequest: app.rateLimit({
          max: app.env.BOARD_IMAGE_RATE_LIMIT_PER_MINUTE,
          timeWindow: '1 minute',
          keyGenerator: (request) => `board-image:${request.session?.memberId ?? request.ip}`,
        }),
        // A member over the quota is refused before the upload is read; the contract's body check then
        // sees the file.
        preValidation: async (request: FastifyRequest) => {
          await boardImages.assertQuotaLeft(sessionOf(request).memberId);
          request.body = { file: await readSingleFile(request, { field: 'file', maxBytes: BOARD_IMAGE_MAX_BYTES }) };
        },
      },
      handler: async ({ body, request }) => ({
        status: 201,
        body: await boardImages.upload(sessionOf(request).memberId, uploadedBytes(body.file)),
      }),
    },
    getImage: async ({ params, request, reply }) => {
      if (isFresh(request, params.id)) {
        if (!(await boardImages.exists(params.id))) throw new NotFoundError('image');
        sendAsImage(reply, params.id);
        return { status: 304, body: undefined };
      }
      const image = await boardImages.read(params.id);
      if (!image) throw new NotFoundError('image');
      sendAsImage(reply, params.id, image.contentType);
      return { status: 200, body: image.bytes };
    },
  });
}
