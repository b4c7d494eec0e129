/** An amount cell read: sign, digits, and the currency its text names, if any. */
export interface Amount {
  negative: boolean;
  /** the whole part, digits only, no leading zeros ("0" for zero) */
  whole: string;
  /** the fraction's digits as written ("" when none) */
  fraction: string;
  /** an ISO code when the cell names a currency (`₩`, `원`, `KRW`, `$`, `USD 12.34`, `12.34달러`) */
  currency: string | null;
}

const SYMBOLS: [RegExp, string][] = [
  [/^(?:us\$|usd|\$|달러|미화)/i, 'USD'],
  [/^(?:krw|₩|\\|원)/i, 'KRW'],
  [/^(?:eur|€|유로)/i, 'EUR'],
  [/^(?:gbp|£|파운드)/i, 'GBP'],
  [/^(?:jpy|¥|엔)/i, 'JPY'],
  [/^(?:cny|rmb|위안)/i, 'CNY'],
];
const CODE_BEFORE = /^([a-z]{3})(?=[\s\d.,(−-])/i;
const CODE_AFTER = /(?<=[\d\s.)])([a-z]{3})$/i;
const SUFFIX_SYMBOLS: [RegExp, string][] = [
  [/(?:원|₩)$/, 'KRW'],
  [/(?:달러|\$)$/, 'USD'],
  [/(?:유로|€)$/, 'EUR'],
  [/(?:엔|¥)$/, 'JPY'],
  [/(?:파운드|£)$/, 'GBP'],
  [/위안$/, 'CNY'],
];

const POINT_DECIMAL = /^(?:\d{1,3}(?:[,\s'’]\d{3})+|\d+)(?:\.(\d+))?$|^\.(\d+)$/;
const COMMA_DECIMAL = /^(?:\d{1,3}(?:[.\s'’]\d{3})+|\d+)(?:,(\d+))?$/;

/**
 * `12,345`, `-12,345`, `(12,345)`, `12,345-`, `△12,345`, `₩12,345`, `12,345원`, `KRW 12,345`, `USD 12.34`, `1.234,56`
 * (with `decimalComma`), full-width digits: sign, digits and named currency. Null for anything else (and for "").
 */
export function parseAmount(cell: string, decimalComma = false): Amount | null {
  let text = cell
    .normalize('NFKC')
    .replace(/[\u00a0\u2009\u202f]/g, ' ')
    .trim();
  if (text === '') return null;
  let negative = false;
  let currency: string | null = null;
  const strip = (re: RegExp) => {
    const m = re.exec(text);
    if (!m) return false;
    text = (text.slice(0, m.index) + text.slice(m.index + m[0].length)).trim();
    return true;
  };
  if (/^\(.*\)$/.test(text)) {
    negative = true;
    text = text.slice(1, -1).trim();
  }
  for (let pass = 0; pass < 2; pass++) {
    if (strip(/^[-−–△]/)) negative = true;
    strip(/^\+/);
    for (const [re, code] of SYMBOLS) {
      if (strip(re)) {
        currency ??= code;
        break;
      }
    }
    const before = CODE_BEFORE.exec(text);
    if (before && !currency) {
      currency = before[1]!.toUpperCase();
      strip(CODE_BEFORE);
    }
  }
  if (/^\(.*\)$/.test(text)) {
    negative = true;
    text = text.slice(1, -1).trim();
  }
  for (let pass = 0; pass < 2; pass++) {
    if (strip(/-$/)) negative = true;
    for (const [re, code] of SUFFIX_SYMBOLS) {
      if (strip(re)) {
        currency ??= code;
        break;
      }
    }
    const after = CODE_AFTER.exec(text);
    if (after) {
      currency ??= after[1]!.toUpperCase();
      strip(CODE_AFTER);
    }
  }
  if (/^\(.*\)$/.test(text)) {
    negative = true;
    text = text.slice(1, -1).trim();
  }
  const m = (decimalComma ? COMMA_DECIMAL : POINT_DECIMAL).exec(text);
  if (!m) return null;
  const [wholeText, fractionText = ''] = decimalComma ? text.split(',') : text.split('.');
  const whole = (wholeText ?? '').replace(/\D/g, '').replace(/^0+(?=\d)/, '') || '0';
  return { negative, whole, fraction: fractionText, currency };
}

/** Whether a column writes decimals with a comma (`1.234,56`, `12,34`): some cell does, and none with a point. */
export function usesDecimalComma(cells: readonly string[]): boolean {
  let comma = false;
  for (const cell of cells) {
    const t = cell.normalize('NFKC').replace(/[^\d.,]/g, '');
    if (/\d\.\d{1,2}$/.test(t) || /\d,\d{3}\.\d/.test(t)) return false;
    if (/\d,\d{1,2}$/.test(t) || /\d\.\d{3},\d/.test(t)) comma = true;
  }
  return comma;
}

export function isZero(a: Amount): boolean {
  return a.whole === '0' && /^0*$/.test(a.fraction);
}

/** Whole units as a safe integer (sign kept), or null when the amount has a fraction or is too large. */
export function wholeUnits(a: Amount): number | null {
  if (!/^0*$/.test(a.fraction)) return null;
  const n = Number(a.whole);
  if (!Number.isSafeInteger(n)) return null;
  return a.negative && n !== 0 ? -n : n;
}

/** The amount's absolute value as an exact decimal string without grouping: "12.34", "3400", "0.50". */
export function decimalText(a: Amount): string {
  return a.fraction === '' ? a.whole : `${a.whole}.${a.fraction}`;
}

/** A currency cell as an ISO code (`usd` → `USD`, `₩`/`원` → `KRW`, `달러` → `USD`), or null. */
export function currencyCode(cell: string): string | null {
  const text = cell.normalize('NFKC').trim();
  if (/^[a-z]{3}$/i.test(text)) return text.toUpperCase();
  for (const [re, code] of SYMBOLS) if (re.test(text) && text.replace(re, '').trim() === '') return code;
  if (/^(?:us\s*dollars?|dollars?)$/i.test(text)) return 'USD';
  return null;
}
