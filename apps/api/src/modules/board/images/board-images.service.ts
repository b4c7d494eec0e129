import type { ImageUploadResponse } from '@nestegg/contract';
import { boardImage, type Database, type DbOrTx } from '@nestegg/db';
import { eq, sql } from 'drizzle-orm';
import { AppError } from '../../../lib/errors.js';
import { lockBoardImageUploads } from '../../../lib/locks.js';
import { boardImageToStore } from './board-image.js';

/** What a member may upload in any 24 hours. */
export interface BoardImageQuota {
  images: number;
  bytes: number;
}

export interface BoardImagesDeps {
  db: Database;
  /** The externally visible address of the api (`PUBLIC_URL`, no trailing slash): image URLs start with it. */
  publicUrl: string;
  quota: BoardImageQuota;
}

/** A stored image, as `GET /api/images/{id}` serves it. */
export interface StoredBoardImage {
  contentType: string;
  bytes: Buffer;
}

/** The member's uploads of the last 24 hours are used up: 429 with `Retry-After` until the oldest leaves. */
export class ImageQuotaExceededError extends AppError {
  constructor(retryAfterSeconds: number) {
    super('IMAGE_QUOTA_EXCEEDED', 'You have uploaded as many images as a day allows. Try again later.', {
      retryAfterSeconds,
    });
  }
}

interface Usage {
  images: number;
  bytes: number;
  /** Seconds until the oldest upload of the window leaves it. */
  retryAfter: number;
}

/** The member's uploads of the last 24 hours (an index range of `board_image_member_created_idx`). */
async function usageOf(db: DbOrTx, memberId: number): Promise<Usage> {
  const [row] = await db.execute<{ images: number; bytes: string; retry_after: number | null }>(sql`
    select count(*)::int as images, coalesce(sum(byte_size), 0)::bigint as bytes,
           ceil(extract(epoch from min(created_at) + interval '24 hours' - now()))::int as retry_after
      from board_image
     where member_id = ${memberId} and created_at > now() - interval '24 hours'`);
  return { images: row?.images ?? 0, bytes: Number(row?.bytes ?? 0), retryAfter: row?.retry_after ?? 1 };
}

/** The image statements of `GET /api/images/{id}`, built once (V5). */
function prepareReads(db: Database) {
  const byId = eq(boardImage.id, sql.placeholder('id'));
  return {
    image: db
      .select({ contentType: boardImage.contentType, bytes: boardImage.bytes })
      .from(boardImage)
      .where(byId)
      .prepare('board_image_by_id'),
    exists: db.select({ id: boardImage.id }).from(boardImage).where(byId).prepare('board_image_exists'),
  };
}

/**
 * Board images (`POST /api/board/images`, `GET /api/images/{id}`), over explicit dependencies. An upload
 * is re-encoded before it is stored (`boardImageToStore`) and counts against the member's quota of images
 * and stored bytes over the last 24 hours.
 */
export class BoardImagesService {
  private readonly reads: ReturnType<typeof prepareReads>;

  constructor(private readonly deps: BoardImagesDeps) {
    this.reads = prepareReads(deps.db);
  }

  /**
   * Refuses (429) a member whose quota is already used up, before the upload is even read. Only a
   * shortcut: `upload` checks again where it counts.
   */
  async assertQuotaLeft(memberId: number): Promise<void> {
    this.assertWithin(await usageOf(this.deps.db, memberId), 0);
  }

  /**
   * Stores a re-encoded copy of an upload and returns its short absolute URL. The quota is checked and
   * the image stored in one transaction under the member's upload lock, so parallel uploads cannot all
   * pass a count that was only read (the route calls `assertQuotaLeft` first, to skip reading and decoding).
   */
  async upload(memberId: number, untrusted: Buffer): Promise<ImageUploadResponse> {
    const image = await boardImageToStore(untrusted);
    const id = await this.deps.db.transaction(async (tx) => {
      await lockBoardImageUploads(tx, memberId);
      this.assertWithin(await usageOf(tx, memberId), image.bytes.length);
      const [row] = await tx
        .insert(boardImage)
        .values({ memberId, contentType: image.contentType, bytes: image.bytes, byteSize: image.bytes.length })
        .returning({ id: boardImage.id });
      return row!.id;
    });
    return { url: this.urlOf(id) };
  }

  /** The stored image, or null for an unknown id. */
  async read(id: string): Promise<StoredBoardImage | null> {
    const [row] = await this.reads.image.execute({ id });
    return row ?? null;
  }

  /** Whether an image exists (answers a conditional request without reading its bytes). */
  async exists(id: string): Promise<boolean> {
    return (await this.reads.exists.execute({ id })).length > 0;
  }

  /** `{PUBLIC_URL}/api/images/{id}`. */
  urlOf(id: string): string {
    return `${this.deps.publicUrl}/api/images/${id}`;
  }

  private assertWithin(usage: Usage, addedBytes: number): void {
    const { quota } = this.deps;
    const full = addedBytes === 0 ? usage.bytes >= quota.bytes : usage.bytes + addedBytes > quota.bytes;
    if (usage.images >= quota.images || full) throw new ImageQuotaExceededError(usage.retryAfter);
  }
}
