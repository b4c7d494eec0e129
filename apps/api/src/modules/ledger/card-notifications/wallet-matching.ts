import type { AccountType } from '@nestegg/db';
import { findIssuerLabel } from './issuers.js';
import { CARD_COMPANIES, type CardCompany } from './types.js';

/** Wallet types a card approval can be charged to. */
export const CARD_WALLET_TYPES: readonly AccountType[] = ['CARD', 'CHECK_CARD'];

/** A wallet as card matching sees it. */
export interface MatchableWallet {
  id: number;
  type: AccountType;
  /**
   * Canonical issuer from the wallet's card company (or, without one, its name); a company the parser does
   * not know stays as written, so it still differs from every known issuer; null when unknown.
   */
  issuer: string | null;
  /** Last four card digits from the account number (or, without one, the name); null when unknown. */
  last4: string | null;
}

/** The card a notification names. */
export interface NotifiedCard {
  company: CardCompany | null;
  last4: string | null;
}

/** Names members give issuers that the notification labels do not spell out. */
const ISSUER_NAMES: Readonly<Record<string, CardCompany>> = {
  kb: 'KB국민',
  국민: 'KB국민',
  kookmin: 'KB국민',
  shinhan: '신한',
  samsung: '삼성',
  hyundai: '현대',
  lotte: '롯데',
  hana: '하나',
  keb하나: '하나',
  외환: '하나',
  woori: '우리',
  비씨: 'BC',
  nh: 'NH농협',
  농협: 'NH농협',
  시티: '씨티',
  citi: '씨티',
  기업: 'IBK',
  kakaobank: '카카오뱅크',
  카카오: '카카오뱅크',
  토스뱅크: '토스',
  toss: '토스',
  k뱅크: '케이뱅크',
  kbank: '케이뱅크',
  mg: '새마을금고',
};

const CARD_SUFFIX = /(체크카드|신용카드|카드|체크|card)$/;

/**
 * The canonical issuer a member's free text names ("신한카드", "KB국민", "국민", "현대카드 M", "Shinhan"),
 * read with the notification parser's own labels; null when it names none.
 */
export function issuerOf(written: string | null): CardCompany | null {
  if (!written) return null;
  const normalized = written.normalize('NFKC').trim();
  const compact = normalized.replace(/\s+/g, '').toLowerCase().replace(CARD_SUFFIX, '');
  const exact = CARD_COMPANIES.find((company) => company.toLowerCase() === compact) ?? ISSUER_NAMES[compact];
  if (exact) return exact;
  return (findIssuerLabel(normalized) ?? findIssuerLabel(normalized.replace(/\s+/g, '')))?.company ?? null;
}

/** The last four digits of an account number (masks and separators skipped); null with fewer than four. */
export function last4OfNumber(accountNumber: string | null): string | null {
  const digits = (accountNumber ?? '').replace(/\D/g, '');
  return digits.length >= 4 ? digits.slice(-4) : null;
}

/** A group of exactly four digits in a wallet name ("신한 Deep Dream 1054"); the last one wins. */
export function last4OfName(name: string): string | null {
  const groups = name.normalize('NFKC').match(/(?<!\d)\d{4}(?!\d)/g);
  return groups?.at(-1) ?? null;
}

/**
 * How well a card wallet fits the notified card: 0 when the text contradicts it (another issuer, other
 * digits), else 1, plus 2 for the same issuer and 1 for the same digits.
 */
export function fitOf(wallet: MatchableWallet, card: NotifiedCard): number {
  if (!CARD_WALLET_TYPES.includes(wallet.type)) return 0;
  if (card.company && wallet.issuer && wallet.issuer !== card.company) return 0;
  if (card.last4 && wallet.last4 && wallet.last4 !== card.last4) return 0;
  const sameIssuer = card.company !== null && wallet.issuer === card.company;
  const sameDigits = card.last4 !== null && wallet.last4 === card.last4;
  return 1 + (sameIssuer ? 2 : 0) + (sameDigits ? 1 : 0);
}

/**
 * The wallet a notified approval is charged to (spec rule 2, "matched in both directions"):
 * - from the text: the one best-fitting card wallet, if it fits by issuer or digits, or if it is the
 *   member's only card wallet and nothing contradicts it; ties name no wallet;
 * - from the device: the wallet sent is kept when it is a card wallet among the best fits, or a non-card
 *   wallet when no card is matched; a cash (or other) selection is replaced by the matched card, and a
 *   card the text contradicts by the matched card or by none.
 */
export function chooseWallet(
  wallets: readonly MatchableWallet[],
  card: NotifiedCard,
  chosenId: number | null,
): number | null {
  const cards = wallets.filter((wallet) => CARD_WALLET_TYPES.includes(wallet.type));
  const best = Math.max(0, ...cards.map((wallet) => fitOf(wallet, card)));
  const chosen = wallets.find((wallet) => wallet.id === chosenId);
  if (chosen && best > 0 && fitOf(chosen, card) === best) return chosen.id;
  const matched = matchedCard(cards, card, best);
  if (matched !== null) return matched;
  if (chosen && !CARD_WALLET_TYPES.includes(chosen.type)) return chosen.id;
  return null;
}

function matchedCard(cards: readonly MatchableWallet[], card: NotifiedCard, best: number): number | null {
  const top = cards.filter((wallet) => best > 0 && fitOf(wallet, card) === best);
  if (top.length !== 1) return null;
  const knownFit = best > 1;
  return knownFit || cards.length === 1 ? top[0]!.id : null;
}
