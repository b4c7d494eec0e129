import { findAll, findFirst, type RegexHit } from './scratch';
import type { CardCompany } from './types';

interface IssuerAlias {
  company: CardCompany;
  /** The whole card label as written (brackets and 카드/체크 suffixes included), so that it is consumed in one piece. */
  label: RegExp;
}

const CARD_WORD = '(?:체크카드|법인카드|가족카드|카드|체크|법인|가족)';

/**
 * Order matters only for labels that start at the same place: co-branded BC labels ("우리BC") come
 * before the bank's own label ("우리…"). Otherwise the label written first in the text wins, because
 * the card label heads every known layout while a merchant name (롯데마트, 하나로마트) comes later.
 */
const ISSUER_ALIASES: readonly IssuerAlias[] = [
  {
    company: 'BC',
    label:
      /\[?(?<![A-Za-z])(?:우리|농협|NH|씨티|시티|기업|IBK|SC|부산|경남|대구|광주|전북|제주|수협|하나)\s?(?:BC|비씨)(?:카드)?\]?/,
  },
  { company: 'BC', label: /\[?(?<![A-Za-z])(?:BC|비씨)(?:카드|체크)?(?![A-Za-z])\]?/ },
  { company: 'KB국민', label: /\[?(?<![A-Za-z])KB\s?Pay(?:\s?사용\s?알림)?\]?/i },
  { company: 'KB국민', label: new RegExp(`\\[?(?<![A-Za-z])KB\\s?국민\\s?${CARD_WORD}?\\]?`) },
  {
    company: 'KB국민',
    label: new RegExp(`\\[?(?<![A-Za-z])KB\\*?${CARD_WORD}\\]?|\\[KB\\]|국민${CARD_WORD}|국민(?=\\d{4})`),
  },
  { company: '신한', label: new RegExp(`\\[?신한${CARD_WORD}?\\]?|(?<![A-Za-z])Shinhan`, 'i') },
  { company: '삼성', label: /\[?삼성(?:가족|법인|체크)?(?:카드)?\]?|(?<![A-Za-z])Samsung\s?Card/i },
  {
    company: '현대',
    // "현대 대한항공030 승인", "현대 ZERO Edition2 승인": the issuer, then a product name, then the status word.
    label:
      /\[?현대카드[A-Z]?\]?|현대(?=\s?(?:\d{4}|ZERO|체크|승인))|현대(?=\s[^\n]{1,24}?\s(?:승인|취소|해외승인)(?![가-힣]))|스마일카드|(?<![A-Za-z])Hyundai\s?Card/i,
  },
  {
    company: '롯데',
    // LOCA is 롯데카드's product line: "LOCA LIKIT 2.0(7*2*)", "LOCA 365", "LOCA".
    label: new RegExp(`\\[?롯데${CARD_WORD}\\]?|롯데(?=[\\s\\d(])|\\bLOCA\\b(?:[ \\t][A-Za-z0-9.+]+)*`),
  },
  {
    company: '하나',
    label: new RegExp(
      `\\[?(?:KEB\\s?)?하나(?:SK)?${CARD_WORD}?\\]?(?=[\\s\\d(*]|승인|취소|해외|$)|\\[?외환${CARD_WORD}\\]?`,
    ),
  },
  { company: '우리', label: new RegExp(`\\[?우리${CARD_WORD}\\]?|우리(?=[(\\d]|\\s?승인)`) },
  { company: 'NH농협', label: new RegExp(`\\[?(?<![A-Za-z])(?:NH농협|NH|농협)${CARD_WORD}?\\]?(?![A-Za-z])`) },
  { company: '씨티', label: new RegExp(`\\[?(?:씨티|시티)${CARD_WORD}?\\]?|\\bCiti(?:bank)?\\b`, 'i') },
  {
    company: 'IBK',
    label: new RegExp(`\\[?(?<![A-Za-z])IBK(?:기업)?${CARD_WORD}?\\]?|기업은행|\\[?기업${CARD_WORD}\\]?`),
  },
  { company: '카카오뱅크', label: /카카오뱅크(?:\s?체크카드|\s?카드)?|(?<![A-Za-z])kakaobank/i },
  { company: '토스', label: /토스뱅크(?:\s?체크카드|\s?카드)?/ },
  { company: '케이뱅크', label: /케이뱅크(?:\s?체크카드|\s?카드)?|(?<![A-Za-z])K\s?뱅크/ },
  { company: '수협', label: new RegExp(`(?:Sh)?수협(?:은행)?${CARD_WORD}?`) },
  { company: '광주', label: new RegExp(`광주(?:은행)?${CARD_WORD}`) },
  { company: '전북', label: new RegExp(`전북(?:은행)?${CARD_WORD}`) },
  { company: '제주', label: new RegExp(`제주(?:은행)?${CARD_WORD}`) },
  { company: '우체국', label: new RegExp(`우체국${CARD_WORD}?`) },
  { company: '새마을금고', label: new RegExp(`새마을금고${CARD_WORD}?|(?<![A-Za-z])MG${CARD_WORD}`) },
  { company: '신협', label: new RegExp(`신협${CARD_WORD}?`) },
];

export interface IssuerLabel {
  company: CardCompany;
  hit: RegexHit;
}

/** The card label written first in the text. */
export function findIssuerLabel(text: string): IssuerLabel | null {
  let best: IssuerLabel | null = null;
  for (const alias of ISSUER_ALIASES) {
    const hit = findFirst(text, alias.label);
    if (hit && (!best || hit.start < best.hit.start)) best = { company: alias.company, hit };
  }
  return best;
}

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/**
 * Every place the same issuer is named as a card label, in text order: a push repeats its title
 * ("삼성카드") in the body ("삼성4821승인"). A label glued to a preceding word ("G마켓_스마일카드") is a
 * merchant name, not a label.
 */
export function findLabelOccurrences(text: string, company: CardCompany): RegexHit[] {
  const hits = ISSUER_ALIASES.filter((alias) => alias.company === company)
    .flatMap((alias) => findAll(text, alias.label))
    .filter((hit) => !WORD_CHAR.test(text.charAt(hit.start - 1)))
    .sort((left, right) => left.start - right.start || right.end - left.end);
  return hits.filter((hit, index) => hits.slice(0, index).every((earlier) => earlier.end <= hit.start));
}
