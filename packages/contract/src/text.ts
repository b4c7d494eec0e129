import {
  addIssueToContext,
  DIRTY,
  type ParseInput,
  type ParseReturnType,
  ZodIssueCode,
  ZodString,
  type ZodStringCheck,
  z,
} from 'zod';

/** Characters (code points) in a string: a surrogate pair counts once, as JSON Schema's `maxLength` counts. */
export const codePointLength = (s: string): number => {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const high = s.charCodeAt(i);
    if (high >= 0xd800 && high <= 0xdbff) {
      const low = s.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
};

const isLengthCheck = (check: ZodStringCheck): boolean =>
  check.kind === 'min' || check.kind === 'max' || check.kind === 'length';

/**
 * A zod string whose `min`, `max` and `length` count characters (code points), as the OpenAPI document's
 * `minLength`/`maxLength` do and as PostgreSQL's `varchar(n)` and `char_length` do; zod's own count UTF-16
 * units, so a name of 30 astral characters (60 units) passed the document and was refused (decision C28).
 * The length checks run on the value the other checks leave (after `trim`, as they are always written after it);
 * a maximum also holds for the value as sent, as the document's `maxLength` says (C41). They are checked only on a
 * value the other checks accept, so a value gets one message (C47).
 * Every method that makes a new string schema keeps the class.
 */
class ZodText extends ZodString {
  /** The same schema without its length checks (built once, on first use), or null when it has none. */
  private withoutLengths: ZodString | null | undefined;

  override _parse(input: ParseInput): ParseReturnType<string> {
    const checks = this._def.checks;
    if (this.withoutLengths === undefined) {
      this.withoutLengths = checks.some(isLengthCheck)
        ? new ZodString({ ...this._def, checks: checks.filter((check) => !isLengthCheck(check)) })
        : null;
    }
    const others = this.withoutLengths;
    if (!others) return super._parse(input);
    const sent = input.data as unknown; // zod's `trim` check rewrites `input.data`
    const result = others._parse(input) as Exclude<ParseReturnType<string>, Promise<unknown>>;
    if (result.status !== 'valid' || typeof result.value !== 'string') return result;
    const value = result.value;
    const length = codePointLength(value);
    // A maximum holds for the value as sent too: the document's maxLength cannot say "after trimming" (C41).
    const longest = typeof sent === 'string' ? Math.max(length, codePointLength(sent)) : length;
    let dirty = false;
    for (const check of checks) {
      if (!isLengthCheck(check) || !('value' in check)) continue;
      const tooSmall = (check.kind === 'min' || check.kind === 'length') && length < check.value;
      const tooBig = (check.kind === 'max' || check.kind === 'length') && longest > check.value;
      if (!tooSmall && !tooBig) continue;
      const ctx = this._getOrReturnCtx(input);
      addIssueToContext(
        ctx,
        tooBig
          ? {
              code: ZodIssueCode.too_big,
              maximum: check.value,
              type: 'string',
              inclusive: true,
              exact: check.kind === 'length',
              message: check.message,
            }
          : {
              code: ZodIssueCode.too_small,
              minimum: check.value,
              type: 'string',
              inclusive: true,
              exact: check.kind === 'length',
              message: check.message,
            },
      );
      dirty = true;
    }
    return dirty ? DIRTY(value) : result;
  }

  override _addCheck(check: ZodStringCheck): ZodString {
    return new ZodText({ ...this._def, checks: [...this._def.checks, check] });
  }

  override trim(): ZodString {
    return new ZodText({ ...this._def, checks: [...this._def.checks, { kind: 'trim' }] });
  }

  override toLowerCase(): ZodString {
    return new ZodText({ ...this._def, checks: [...this._def.checks, { kind: 'toLowerCase' }] });
  }

  override toUpperCase(): ZodString {
    return new ZodText({ ...this._def, checks: [...this._def.checks, { kind: 'toUpperCase' }] });
  }
}

/**
 * Text in a request or response. PostgreSQL cannot store the NUL character in text, so it is refused
 * here (a 400 naming the field) rather than by the database (decision C24). Lengths count characters (C28).
 */
export const text = (): ZodString =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the NUL character is exactly what this refuses
  new ZodText(z.string()._def).regex(/^[^\u0000]*$/, 'must not contain the NUL character');

/**
 * A character other than white space (and no NUL): what a trimmed string that must not be empty needs, as a
 * pattern the OpenAPI document can show (`\s` is exactly what `String#trim` removes). Decision C27.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the NUL character is refused here too (the document shows one pattern)
export const NON_BLANK_PATTERN = /^\s*[^\s\u0000][^\u0000]*$/;

/** Trimmed text that must keep a character: whitespace alone is refused, and the document's pattern says so. */
export const nonBlankText = (): ZodString =>
  text().trim().min(1).regex(NON_BLANK_PATTERN, 'must contain a character other than white space');
