/** Marks text that an extractor has read, so that what nobody read is left for the merchant. */
export const CONSUMED = '\u0000';

export interface RegexHit {
  groups: Record<string, string | undefined>;
  start: number;
  end: number;
}

/**
 * The notification text with every read character replaced by CONSUMED (lengths never change,
 * so positions stay comparable). Line breaks are kept.
 */
export class Scratch {
  private chars: string[];

  constructor(readonly original: string) {
    // UTF-16 units, not code points: RegExp indexes count units.
    this.chars = original.split('');
  }

  get text(): string {
    return this.chars.join('');
  }

  consume(start: number, end: number): void {
    for (let index = start; index < end; index += 1) {
      if (this.chars[index] !== '\n') this.chars[index] = CONSUMED;
    }
  }

  /** First match of `pattern` in the unread text; consumes it. */
  take(pattern: RegExp): RegexHit | null {
    const hit = findFirst(this.text, pattern);
    if (hit) this.consume(hit.start, hit.end);
    return hit;
  }

  /** Every match of `pattern` in the unread text; consumes them all. */
  takeAll(pattern: RegExp): RegexHit[] {
    const hits = findAll(this.text, pattern);
    for (const hit of hits) this.consume(hit.start, hit.end);
    return hits;
  }

  /** Unread fragments, each with the index of the line it sits on. */
  fragments(): Array<{ line: number; text: string }> {
    return this.text.split('\n').flatMap((line, lineIndex) =>
      line
        .split(new RegExp(`${CONSUMED}+`))
        .map((text) => ({ line: lineIndex, text }))
        .filter((fragment) => fragment.text.trim().length > 0),
    );
  }
}

export function findFirst(text: string, pattern: RegExp): RegexHit | null {
  const flags = pattern.flags.replace('g', '');
  const match = new RegExp(pattern.source, flags).exec(text);
  return match ? toHit(match) : null;
}

export function findAll(text: string, pattern: RegExp): RegexHit[] {
  const flags = pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`;
  return [...text.matchAll(new RegExp(pattern.source, flags))].filter((match) => match[0].length > 0).map(toHit);
}

function toHit(match: RegExpMatchArray | RegExpExecArray): RegexHit {
  const start = match.index ?? 0;
  return { groups: { ...match.groups }, start, end: start + match[0].length };
}
