import iconv from 'iconv-lite';
import { StatementError } from './errors.js';
import type { StatementEncoding } from './types.js';

export interface DecodedText {
  text: string;
  encoding: StatementEncoding;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** How much of the start of a file is looked at to tell text from binary. */
const SNIFF_BYTES = 64 * 1024;

/**
 * A text file's bytes as text. Marked encodings first (UTF-8 and UTF-16 byte order marks, UTF-16 without one told
 * by its zero bytes), then strict UTF-8, then a declared Windows-1252 (OFX, HTML), then CP949 (which includes EUC-KR).
 * Throws BINARY_FILE for bytes that are no text, BROKEN_ENCODING for text in none of these encodings.
 */
export function decodeText(bytes: Uint8Array, fileName: string, declared: 'WINDOWS-1252' | null = null): DecodedText {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return { text: strictUtf8(bytes.subarray(3), fileName, 'it starts with a UTF-8 mark'), encoding: 'UTF-8-BOM' };
  }
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return utf16(bytes.subarray(2), 'UTF-16LE', fileName);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return utf16(bytes.subarray(2), 'UTF-16BE', fileName);
  const unmarked = unmarkedUtf16(bytes);
  if (unmarked) return utf16(bytes, unmarked, fileName);
  if (looksBinary(bytes)) throw binaryFile(fileName);
  try {
    return { text: utf8.decode(bytes), encoding: 'UTF-8' };
  } catch {
    // not UTF-8: a legacy encoding
  }
  if (declared === 'WINDOWS-1252')
    return { text: iconv.decode(Buffer.from(bytes), 'win1252'), encoding: 'WINDOWS-1252' };
  const text = iconv.decode(Buffer.from(bytes), 'cp949');
  if (text.includes('\uFFFD')) {
    throw new StatementError(
      'BROKEN_ENCODING',
      `${quoted(fileName)} is in no text encoding we read (UTF-8, UTF-16, CP949/EUC-KR): some bytes are not valid characters. ` +
        'Download the statement again, or open it in Excel and save it as CSV UTF-8 or .xlsx.',
    );
  }
  return { text, encoding: 'CP949' };
}

function strictUtf8(bytes: Uint8Array, fileName: string, why: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new StatementError(
      'BROKEN_ENCODING',
      `${quoted(fileName)} is not valid UTF-8 although ${why}. Download the statement again, or save it as CSV UTF-8 or .xlsx.`,
    );
  }
}

function utf16(bytes: Uint8Array, encoding: 'UTF-16LE' | 'UTF-16BE', fileName: string): DecodedText {
  const broken = () =>
    new StatementError(
      'BROKEN_ENCODING',
      `${quoted(fileName)} is not valid ${encoding.replace('UTF-16', 'UTF-16 ')} text (an odd number of bytes or a broken character). ` +
        'Download the statement again, or save it as CSV UTF-8 or .xlsx.',
    );
  if (bytes.length % 2 !== 0) throw broken();
  const text = iconv.decode(Buffer.from(bytes), encoding === 'UTF-16LE' ? 'utf-16le' : 'utf-16be');
  // Lone surrogates become U+FFFD in iconv-lite; a real statement never holds that character.
  if (text.includes('\uFFFD') || text.includes('\u0000')) throw broken();
  return { text, encoding };
}

/** UTF-16 without a byte order mark: ASCII characters leave a zero in every other byte. */
function unmarkedUtf16(bytes: Uint8Array): 'UTF-16LE' | 'UTF-16BE' | null {
  const n = Math.min(bytes.length, SNIFF_BYTES) & ~1;
  if (n < 4) return null;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenZeros++;
    if (bytes[i + 1] === 0) oddZeros++;
  }
  const pairs = n / 2;
  // Hangul leaves zeros too (가 is U+AC00), but far fewer than ASCII does.
  if (oddZeros > pairs * 0.2 && evenZeros * 4 < oddZeros) return 'UTF-16LE';
  if (evenZeros > pairs * 0.2 && oddZeros * 4 < evenZeros) return 'UTF-16BE';
  return null;
}

/** A zero byte, or more than 1% control bytes other than tab, line breaks, form feed and Ctrl-Z, in the first 64 KiB. */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, SNIFF_BYTES);
  let controls = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b === 0) return true;
    if ((b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1a) || b === 0x7f) controls++;
  }
  return controls > n * 0.01;
}

export function binaryFile(fileName: string): StatementError {
  return new StatementError(
    'BINARY_FILE',
    `${quoted(fileName)} is not a text file (it holds binary data), so it cannot be read as CSV, OFX or an HTML table. ` +
      'Upload the CSV, Excel (.xlsx) or OFX file the bank or card site gives for download.',
  );
}

export function quoted(fileName: string): string {
  const name = fileName.trim() || 'The file';
  return name === 'The file' ? name : `"${name.length > 80 ? `${name.slice(0, 77)}…` : name}"`;
}
