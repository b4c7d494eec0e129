import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, BadRequestError, ValidationFailedError } from '../lib/errors.js';

/**
 * File uploads (`multipart/form-data`, decisions C8, P24): @fastify/multipart registered only in the
 * modules whose routes take a file (`acceptUploads`), so its per-request hooks run on those routes alone. A
 * route that declares `contentType: 'multipart/form-data'` in the contract reads its file with
 * `readSingleFile` (typically in a `preValidation` hook, so the contract's body check sees it); every
 * other route has no multipart parser, so Fastify refuses such a body with 415 instead of reading it.
 */

/** Bounds of every multipart body: one file, a few small text fields, nothing more. */
const LIMITS = { files: 1, fields: 10, fieldSize: 1024, fieldNameSize: 100, parts: 12, headerPairs: 100 };

export class PayloadTooLargeError extends AppError {
  constructor(message: string) {
    super('PAYLOAD_TOO_LARGE', message);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(message: string) {
    super('UNSUPPORTED_MEDIA_TYPE', message);
  }
}

export interface SingleFileOptions {
  /** The form field that carries the file. */
  field: string;
  /** Largest file, in bytes: the stream is cut there, so no more than this is ever held in memory. */
  maxBytes: number;
}

const megabytes = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

/** Busboy's limit and parse errors as problems: too much → 413, anything else malformed → 400. */
function asClientError(error: unknown, maxBytes: number): unknown {
  if (error instanceof AppError) return error;
  const failed = error as { code?: string; statusCode?: number };
  if (failed.code === 'FST_REQ_FILE_TOO_LARGE')
    return new PayloadTooLargeError(`The file must be at most ${megabytes(maxBytes)}.`);
  if (failed.statusCode === 413) return new PayloadTooLargeError('Send one file and at most a few small text fields.');
  const malformed = new BadRequestError('BAD_REQUEST', 'The multipart body is malformed.');
  malformed.cause = error;
  return malformed;
}

function missingFile(field: string): ValidationFailedError {
  return new ValidationFailedError([{ path: `body.${field}`, message: 'a file is required' }]);
}

/** An uploaded file: its bytes and the name the client gave it (a base name, at most 255 characters). */
export interface Upload {
  bytes: Buffer;
  fileName: string;
}

/** The client's file name without any folder, control characters or excess length; `upload` when none is left. */
function baseNameOf(name: string | undefined): string {
  const base = [...((name ?? '').split(/[\\/]/).pop() ?? '')]
    .filter((character) => character.charCodeAt(0) > 0x1f && character !== '\u007f')
    .join('')
    .trim();
  return Array.from(base).slice(0, 255).join('') || 'upload';
}

/**
 * The one file of a multipart request with its name, read as it streams in and never past `maxBytes`
 * (413 beyond). Not multipart → 415; no file in `field` → 400 `VALIDATION_FAILED`.
 */
export async function readSingleUpload(request: FastifyRequest, options: SingleFileOptions): Promise<Upload> {
  if (!request.isMultipart()) throw new UnsupportedMediaTypeError('Send the file as multipart/form-data.');
  const limits = { ...LIMITS, fileSize: options.maxBytes };
  try {
    const part = await request.file({ limits, throwFileSizeLimit: true });
    if (part && part.fieldname !== options.field) part.file.resume(); // drained, so the connection stays usable
    if (!part || part.fieldname !== options.field) throw missingFile(options.field);
    return { bytes: await part.toBuffer(), fileName: baseNameOf(part.filename) };
  } catch (error) {
    throw asClientError(error, options.maxBytes);
  }
}

/** The bytes of the one file of a multipart request (see `readSingleUpload`). */
export async function readSingleFile(request: FastifyRequest, options: SingleFileOptions): Promise<Buffer> {
  return (await readSingleUpload(request, options)).bytes;
}

/** What `readSingleFile` put in the body; anything else means the body did not come from it. */
export function uploadedBytes(value: unknown, field = 'file'): Buffer {
  if (!Buffer.isBuffer(value)) throw missingFile(field);
  return value;
}

/** Lets the calling module's routes (an encapsulated context) read multipart bodies. */
export async function acceptUploads(app: FastifyInstance): Promise<void> {
  await app.register(multipart, { limits: LIMITS, throwFileSizeLimit: true });
}
