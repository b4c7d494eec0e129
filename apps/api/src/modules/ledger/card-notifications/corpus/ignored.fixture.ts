import { type CorpusEntry, IGNORED, push, sms } from './entries.fixture';

const unnamed = (id: string, what: string) =>
  `public GitHub file, code-search id ${id} (repository not disclosed by the index): ${what}`;
/** No captured sample was found for these kinds; the text follows the issuers' usual notice layout. */
const BUILT =
  'built for this corpus in the usual layout of Korean card notices (no captured sample found); values invented';

/** Texts with no approval in them: advertising, codes, bills, points, balances. */
export const ignoredEntries: CorpusEntry[] = [
  sms(
    '[Web발신] 인증번호 [123456]을 입력해주세요',
    unnamed('71136628834', 'message parser test'),
    '2026-09-28 14:00',
    IGNORED,
  ),
  sms('신한은행 이벤트 안내 입니다', unnamed('71136628834', 'message parser test'), '2026-09-28 14:01', IGNORED),
  push(
    '[Web발신]\n(광고)[삼성카드] 무이자할부 LINK 혜택!!',
    unnamed('10193660244', 'notification filter test'),
    '2026-02-14 10:00',
    IGNORED,
  ),
  sms(
    '[Web발신]\n(광고)[신한카드] 홍*동님, 3월 한정 최대 6개월 무이자할부 + 스타벅스 5,000원 결제 시 캐시백!\n무료수신거부 080-000-0000',
    BUILT,
    '2026-03-02 11:00',
    IGNORED,
  ),
  sms('[Web발신]\n[신한카드] 인증번호 [482913] 타인에게 절대 알려주지 마세요.', BUILT, '2026-03-02 11:05', IGNORED),
  sms('[Web발신]\n[현대카드] 홍*동님 03/25 결제예정금액 1,234,560원 (03/14 기준)', BUILT, '2026-03-14 09:00', IGNORED),
  push(
    '[KB국민카드] 홍*동님 포인트리 3,250점 적립 안내 (03/14 기준 누적 45,210점)',
    BUILT,
    '2026-03-14 09:30',
    IGNORED,
  ),
  sms(
    '[Web발신]\n[하나카드] 홍*동님 03/15 10:00 기준 이용가능한도 1,250,000원 입니다.',
    BUILT,
    '2026-03-15 10:00',
    IGNORED,
  ),
];
