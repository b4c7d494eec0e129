/** Issue 20: text lengths count characters (C28) and trimmed text needs a non-space character (C27). */
import { describe, expect, it } from 'vitest';
import { EmailSchema } from '../src/auth.js';
import { codePointLength, DateSchema, nonBlankText, ReorderBodySchema } from '../src/common.js';
import { text } from '../src/text.js';

describe('text()', () => {
  it('counts characters, not UTF-16 units, in min, max and length', () => {
    const seedling = '\u{1F331}';
    expect(codePointLength(seedling.repeat(3))).toBe(3);
    expect(codePointLength('\uD800x')).toBe(2); // a lone surrogate is one character
    const name = text().trim().min(2).max(3);
    expect(name.safeParse(seedling.repeat(3)).success).toBe(true);
    expect(name.safeParse(seedling.repeat(4)).success).toBe(false);
    expect(name.safeParse(seedling).success).toBe(false);
    expect(text().length(2).safeParse(seedling.repeat(2)).success).toBe(true);
    expect(name.safeParse(` ${seedling.repeat(2)}`).data).toBe(seedling.repeat(2));
  });

  it('holds a maximum for the value as sent as well as for the trimmed value (C41)', () => {
    const name = text().trim().min(1).max(3);
    expect(name.safeParse(' ab ').success).toBe(false);
    expect(name.safeParse(' ab').data).toBe('ab');
    expect(name.safeParse('   ').success).toBe(false);
  });

  it('keeps its class through trim, describe and case changes, and still refuses NUL', () => {
    const schema = text().trim().toLowerCase().max(4).describe('d');
    expect(schema.safeParse(' \u{1F331}A ').data).toBe('\u{1F331}a');
    expect(schema.safeParse('a\u0000').success).toBe(false);
    expect(schema.optional().safeParse(undefined).success).toBe(true);
  });

  it('nonBlankText refuses whitespace alone with one message naming it', () => {
    const result = nonBlankText().max(5).safeParse(' \t\u3000\n');
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.message)).toContain('must contain a character other than white space');
    expect(nonBlankText().safeParse(' a ').data).toBe('a');
  });
});

describe('dates, reorders, e-mail', () => {
  it('dates are the years 0001..9999', () => {
    for (const ok of ['0001-01-01', '9999-12-31', '2024-02-29'])
      expect(DateSchema.safeParse(ok).success, ok).toBe(true);
    for (const no of ['0000-01-01', '2023-02-29', '10000-01-01'])
      expect(DateSchema.safeParse(no).success, no).toBe(false);
  });

  it('reorder ids must be unique', () => {
    expect(ReorderBodySchema.safeParse({ ids: [1, 1] }).success).toBe(false);
  });

  it('an e-mail is trimmed and lower-cased after the syntax check', () => {
    expect(EmailSchema.safeParse(' A.B+c@Example.COM ').data).toBe('a.b+c@example.com');
    expect(EmailSchema.safeParse('a..b@example.com').success).toBe(false);
  });
});
