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

  /** Unread fragments in text order, each with the index of its line and its position in the text. */
  fragments(): Fragment[] {
    const fragments: Fragment[] = [];
    for (const match of this.text.matchAll(UNREAD_RUN)) {
      const start = match.index ?? 0;
      const line = this.text.slice(0, start).split('\n').length - 1;
      fragments.push({ line, text: match[0], start, end: start + match[0].length });
    }
    return fragments.filter((fragment) => fragment.text.trim().length > 0);
  }
}

export interface Fragment {
  line: number;
  text: string;
  start: number;
  end: number;
}

/** A run of unread characters within one line. */
const UNREAD_RUN = new RegExp(`[^${CONSUMED}\n]+`, 'g');

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
