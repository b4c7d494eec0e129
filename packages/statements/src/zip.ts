import { zipSync } from 'fflate';
import yauzl from 'yauzl';
import { quoted } from './decode.js';
import { StatementError } from './errors.js';
import type { StatementLimits } from './types.js';

/** More entries than any workbook has (a sheet, its relations, styles, strings, a few media). */
export const MAX_ZIP_ENTRIES = 10_000;
/**
 * The largest inflated/compressed ratio an entry of a real workbook has. Sheet XML is repetitive: Excel's own files
 * stay well under 100:1 (a 10,000-row statement compresses about 15:1); zip bombs reach 1,000:1.
 */
export const MAX_COMPRESSION_RATIO = 200;
/** Entries smaller than this are not judged by their ratio (a tiny file of blanks can compress far). */
const RATIO_FLOOR_BYTES = 1024 * 1024;

/**
 * A zip's entries, inflated, within the limits. The central directory is checked first (entry count, the sizes it
 * declares, their total and each ratio), so a zip bomb is refused before a byte is inflated; then every entry is
 * inflated as a stream that yauzl stops as soon as it outgrows its declared size, so a directory that lies costs
 * at most that size. Throws ZIP_BOMB, or UNSUPPORTED_FORMAT for a zip that cannot be read.
 */
export async function unzipGuarded(
  bytes: Uint8Array,
  fileName: string,
  limits: StatementLimits,
): Promise<Record<string, Uint8Array>> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(buffer, { lazyEntries: true, autoClose: false, validateEntrySizes: true }, (err, z) =>
      err ? reject(damaged(fileName, err)) : resolve(z),
    ),
  );
  try {
    if (zip.entryCount > MAX_ZIP_ENTRIES) {
      throw bomb(fileName, `it holds ${zip.entryCount.toLocaleString('en-US')} files, more than any workbook`);
    }
    const entries = await centralDirectory(zip, fileName);
    let total = 0;
    for (const entry of entries) {
      total += entry.uncompressedSize;
      const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
      if (entry.uncompressedSize > RATIO_FLOOR_BYTES && ratio > MAX_COMPRESSION_RATIO) {
        throw bomb(
          fileName,
          `a part of it would expand ${Math.round(ratio).toLocaleString('en-US')} times, as no real sheet does`,
        );
      }
    }
    if (total > limits.maxUnzippedBytes) {
      throw bomb(
        fileName,
        `it would expand to ${mib(total)}, more than the ${mib(limits.maxUnzippedBytes)} a statement may take`,
      );
    }
    const files: Record<string, Uint8Array> = {};
    for (const entry of entries) {
      if (entry.fileName.endsWith('/')) continue;
      files[entry.fileName] = await inflate(zip, entry, fileName);
    }
    return files;
  } finally {
    zip.close();
  }
}

/** The entries again as a zip whose entries are stored, not compressed: what exceljs reads without inflating. */
export function storedZip(files: Record<string, Uint8Array>): Uint8Array {
  return zipSync(files, { level: 0 });
}

function centralDirectory(zip: yauzl.ZipFile, fileName: string): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', (err: Error) => reject(damaged(fileName, err)));
    zip.readEntry();
  });
}

function inflate(zip: yauzl.ZipFile, entry: yauzl.Entry, fileName: string): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err) return reject(damaged(fileName, err));
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (e: Error) =>
        reject(
          /too many bytes|size mismatch|expected/i.test(e.message)
            ? bomb(fileName, 'a part of it holds more than its directory declares')
            : damaged(fileName, e),
        ),
      );
      stream.on('end', () => resolve(Buffer.concat(chunks)));
    });
  });
}

function bomb(fileName: string, why: string): StatementError {
  return new StatementError(
    'ZIP_BOMB',
    `${quoted(fileName)} is refused: ${why}. Open it in Excel and save it again as .xlsx or CSV, or download the statement again.`,
  );
}

export function damaged(fileName: string, cause?: unknown): StatementError {
  const detail = cause instanceof Error ? ` (${cause.message.slice(0, 120)})` : '';
  return new StatementError(
    'UNSUPPORTED_FORMAT',
    `${quoted(fileName)} looks like an Excel workbook (.xlsx) but cannot be opened: it is damaged or incomplete${detail}. ` +
      'Download it again, or open it in Excel and save it as .xlsx or CSV.',
  );
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MiB`;
}
