import { describe, expect, it } from 'vitest';
import { decodeText } from './decode.js';
import { StatementError } from './errors.js';
import { encode } from './files.fixture.js';

const text = '이용일자,가맹점명,이용금액\r\n2026.05.14,스타벅스 강남점,"5,600원"\r\n';

describe('decodeText', () => {
  it.each([
    ['utf8', 'UTF-8'],
    ['utf8-bom', 'UTF-8-BOM'],
    ['utf16le', 'UTF-16LE'],
    ['utf16be', 'UTF-16BE'],
    ['cp949', 'CP949'],
    ['euc-kr', 'CP949'],
  ] as const)('reads %s as %s', (encoding, name) => {
    expect(decodeText(encode(text, encoding), 'a.csv')).toEqual({ text, encoding: name });
  });

  it('reads CP949-only Hangul (똠방각하, outside EUC-KR’s 2,350 syllables)', () => {
    expect(decodeText(encode('가맹점,똠방각하', 'cp949'), 'a.csv')).toEqual({
      text: '가맹점,똠방각하',
      encoding: 'CP949',
    });
  });

  it('reads UTF-16 without a byte order mark by its zero bytes', () => {
    const le = encode(text, 'utf16le').subarray(2);
    expect(decodeText(le, 'a.csv').encoding).toBe('UTF-16LE');
    expect(decodeText(le, 'a.csv').text).toBe(text);
  });

  it('takes a declared Windows-1252 for bytes that are not UTF-8', () => {
    const bytes = Uint8Array.from([0x43, 0x61, 0x66, 0xe9]); // Café
    expect(decodeText(bytes, 'a.ofx', 'WINDOWS-1252')).toEqual({ text: 'Café', encoding: 'WINDOWS-1252' });
  });

  it('refuses bytes in no supported encoding (BROKEN_ENCODING)', () => {
    const bytes = Uint8Array.from([0x61, 0x2c, 0x62, 0x0a, 0xff, 0xff, 0x2c, 0x80]);
    expect(() => decodeText(bytes, 'a.csv')).toThrow(expect.objectContaining({ code: 'BROKEN_ENCODING' }));
  });

  it('refuses a UTF-8 byte order mark followed by no UTF-8', () => {
    const bytes = Uint8Array.from([0xef, 0xbb, 0xbf, 0xb0, 0xa1]);
    expect(() => decodeText(bytes, 'a.csv')).toThrow(/not valid UTF-8/);
  });

  it('refuses a UTF-16 file of an odd length', () => {
    const bytes = Uint8Array.from([0xff, 0xfe, 0x41, 0x00, 0x42]);
    expect(() => decodeText(bytes, 'a.csv')).toThrow(expect.objectContaining({ code: 'BROKEN_ENCODING' }));
  });

  it.each([
    ['a PNG', Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52])],
    ['control bytes', Uint8Array.from({ length: 200 }, (_, i) => (i % 10 === 0 ? 0x01 : 0x41))],
  ])('refuses %s as binary (BINARY_FILE)', (_, bytes) => {
    const error = (() => {
      try {
        decodeText(bytes, 'statement.csv');
      } catch (e) {
        return e;
      }
    })() as StatementError;
    expect(error).toBeInstanceOf(StatementError);
    expect(error.code).toBe('BINARY_FILE');
    expect(error.message).toMatch(/"statement.csv" is not a text file/);
  });
});
