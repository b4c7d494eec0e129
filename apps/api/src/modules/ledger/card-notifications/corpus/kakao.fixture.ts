import { approval, type CorpusEntry, cancellation, IGNORED, sms } from './entries.fixture';

const TEST = 'github.com/kakao/credit-card-sms-parser test/test_credit_card_sms_parser.rb (b510a7e)';
const ISSUE = (n: number) => `https://github.com/kakao/credit-card-sms-parser/issues/${n}`;

/** SMS captured in 2015 by the users of kakao/credit-card-sms-parser (names masked as published). */
export const kakaoEntries: CorpusEntry[] = [
  sms(
    '[Web발신]\n[현대카드]-승인\n김재*님\n1,500원(일시불)\n마노핀익스프레스신림\n누적:354,220원',
    TEST,
    '2015-04-15 12:00',
    approval({ company: '현대', amount: 1500, merchant: '마노핀익스프레스신림', at: null, cumulative: 354220 }),
  ),
  sms(
    '[Web발신]\n하나(6*8*)김*호님 04/06 15:26 씨유판교 일시불/3,500원/누적-4,645원',
    TEST,
    '2015-04-06 15:27',
    approval({ company: '하나', amount: 3500, merchant: '씨유판교', at: '2015-04-06 15:26', cumulative: 4645 }),
  ),
  sms(
    '[Web발신]\nKB국민카드 2*5*\n정*욱님\n03/25 09:30\n2,200원\n미니스톱판교점\n누적 97,440원',
    TEST,
    '2015-03-25 09:30',
    approval({
      company: 'KB국민',
      amount: 2200,
      merchant: '미니스톱판교점',
      at: '2015-03-25 09:30',
      cumulative: 97440,
    }),
  ),
  sms(
    '[Web발신]\n[KB]04/08 21:27\n078501**554\n주식회사개성\n체크카드출금\n13,000',
    TEST,
    '2015-04-08 21:28',
    approval({ company: 'KB국민', amount: 13000, merchant: '주식회사개성', at: '2015-04-08 21:27' }),
  ),
  sms(
    '[Web발신]\n삼성가족카드승인9785\n03/24 18:45\n10,000원\n일시불\n소문난우동',
    TEST,
    '2015-03-24 18:46',
    approval({ company: '삼성', last4: '9785', amount: 10000, merchant: '소문난우동', at: '2015-03-24 18:45' }),
  ),
  sms(
    '[Web발신]\n"KEB하나 박솔*님 4*6*\n일시불 30,000원\n(주)이니 03/23 09:58\n누적 2,368,397원"',
    TEST,
    '2015-03-23 09:59',
    approval({ company: '하나', amount: 30000, merchant: '(주)이니', at: '2015-03-23 09:58', cumulative: 2368397 }),
  ),
  sms(
    '[체크.승인]\n22,000원\n씨티BC(1*9*)김*정님\n01/23 12:34\n매일식당',
    TEST,
    '2015-01-23 12:35',
    approval({ company: 'BC', amount: 22000, merchant: '매일식당', at: '2015-01-23 12:34' }),
  ),
  sms(
    '[Web발신]\n하나(6*8*)김*호님 04/02 19:59 (주)보나 일시불/4,500원/누적-134,049원',
    TEST,
    '2015-04-02 20:00',
    approval({ company: '하나', amount: 4500, merchant: '(주)보나', at: '2015-04-02 19:59', cumulative: 134049 }),
  ),
  sms(
    '[Web발신]\n농협BC(4*8*)오*름님.\n04/14 11:51.\n일시불81,400원.\n누적금액679,780원.\n버거킹 판교유스페',
    TEST,
    '2015-04-14 11:52',
    approval({
      company: 'BC',
      amount: 81400,
      merchant: '버거킹 판교유스페',
      at: '2015-04-14 11:51',
      cumulative: 679780,
    }),
  ),
  sms(
    '[Web발신]\n[현대카드]-승인\n***님\n3,400원(일시불)\nSK플래닛판교마트\n누적:612,900원',
    TEST,
    '2015-04-15 13:00',
    approval({ company: '현대', amount: 3400, merchant: 'SK플래닛판교마트', at: null, cumulative: 612900 }),
  ),
  sms(
    '[Web발신]\nKB국민체크(6*3*)\n***님\n04/24 12:13\n20,000원\n효소원판교점 사용',
    TEST,
    '2015-04-24 12:14',
    approval({ company: 'KB국민', amount: 20000, merchant: '효소원판교점', at: '2015-04-24 12:13' }),
  ),
  sms(
    '[Web발신]\n김*호님\n삼성법인6265\n04/22 19:56\n찌개애감동\n16,000원\n일시불\n잔액\n4,968,160원',
    TEST,
    '2015-04-22 19:57',
    approval({ company: '삼성', last4: '6265', amount: 16000, merchant: '찌개애감동', at: '2015-04-22 19:56' }),
  ),
  sms(
    '[Web발신]\nKEB하나  박우*님 7*5* 일시불     10,000원 롯데쇼핑( 04/18 18:49',
    TEST,
    '2015-04-18 18:50',
    approval({ company: '하나', amount: 10000, merchant: '롯데쇼핑(', at: '2015-04-18 18:49' }),
  ),
  sms(
    '[Web발신]\n신한카드승인 강*혜(9*0*) 04/27 21:31 (일시불)39,500원 (주)페어몬트 누적688,800원',
    TEST,
    '2015-04-27 21:32',
    approval({ company: '신한', amount: 39500, merchant: '(주)페어몬트', at: '2015-04-27 21:31', cumulative: 688800 }),
  ),
  sms(
    '[Web발신]\nKB국민체크(17)\n강*혜님\n04/30 22:34\n87,000원\n이꾸　정자점 사용',
    TEST,
    '2015-04-30 22:35',
    approval({ company: 'KB국민', amount: 87000, merchant: '이꾸 정자점', at: '2015-04-30 22:34' }),
  ),
  sms(
    '[Web발신]\nKB국민체크(1_7_)\n강*혜님\n04/30 22:34\n87,000원\n이꾸　정자점 사용',
    ISSUE(14),
    '2015-04-30 22:35',
    approval({ company: 'KB국민', amount: 87000, merchant: '이꾸 정자점', at: '2015-04-30 22:34' }),
  ),
  sms(
    '[Web발신]\n[KB]05/08 21:44\n078501**554\n365PLUS정자\n체크카드출금\n2,400',
    TEST,
    '2015-05-08 21:45',
    approval({ company: 'KB국민', amount: 2400, merchant: '365PLUS정자', at: '2015-05-08 21:44' }),
  ),
  sms(
    '[Web발신]\n[KB]05/17 12:33\n435002**739\n대성할인마트\n체크카드출금\n4,350\n잔액3,172,018',
    TEST,
    '2015-05-17 12:34',
    approval({ company: 'KB국민', amount: 4350, merchant: '대성할인마트', at: '2015-05-17 12:33' }),
  ),
  sms(
    '[Web발신]\nKB*카드\n김재호님\n05/29 20:52\n320,000원\n우리동물메디컬 취소\n누적 560,060원',
    TEST,
    '2015-05-29 20:53',
    cancellation({
      company: 'KB국민',
      amount: 320000,
      merchant: '우리동물메디컬',
      at: '2015-05-29 20:52',
      cumulative: 560060,
    }),
  ),
  sms(
    '[Web발신]\nKB국민카드\n김*호님\n10/16 04:39\n475.54(US$)\n미국   GOOGLE * 승인',
    TEST,
    '2015-10-16 04:40',
    approval({
      company: 'KB국민',
      amount: null,
      currency: 'USD',
      original: '475.54',
      merchant: '미국 GOOGLE *',
      at: '2015-10-16 04:39',
    }),
  ),
  sms(
    '[Web발신]\nKB국민카드\n김*호님\n10/16 09:37\n1.77(US$)\n미국   GOOGLE * 승인',
    ISSUE(21),
    '2015-10-16 09:38',
    approval({
      company: 'KB국민',
      amount: null,
      currency: 'USD',
      original: '1.77',
      merchant: '미국 GOOGLE *',
      at: '2015-10-16 09:37',
    }),
  ),
  sms(
    '[Web발신]\n[현대카드]-승인\n김재*님\n699,200원(일시불)\nBSP대한항공(￦)\n누적:844,350원',
    TEST,
    '2015-10-17 10:00',
    approval({ company: '현대', amount: 699200, merchant: 'BSP대한항공(₩)', at: null, cumulative: 844350 }),
  ),
  sms(
    '[Web발신]\n삼성카드승인전*정님\n04/17 20:22\n200,230원\n일시불\n코스트코코리아(\n누적980,887원',
    ISSUE(13),
    '2015-04-17 20:23',
    approval({
      company: '삼성',
      amount: 200230,
      merchant: '코스트코코리아(',
      at: '2015-04-17 20:22',
      cumulative: 980887,
    }),
  ),
  // A shop's order receipt, not the issuer's approval.
  sms(
    '[Web발신]\n[SSG.COM 주문완료]\n▶상품명:코카콜라 1.8L*12...\n▶결제금액:28,680원',
    TEST,
    '2015-10-17 11:00',
    IGNORED,
  ),
];
