import { publicUrlOf } from '../../../env.js';
import type { Infrastructure } from '../../../lib/infrastructure.js';
import { BoardImagesService } from './board-images.service.js';

/** Board images, given exactly what they use (called by the composition root). */
export function boardImagesService({ env, db }: Infrastructure): BoardImagesService {
  const quota = { images: env.BOARD_IMAGE_QUOTA_PER_DAY, bytes: env.BOARD_IMAGE_QUOTA_BYTES_PER_DAY };
  return new BoardImagesService({ db, publicUrl: publicUrlOf(env), quota });
}
