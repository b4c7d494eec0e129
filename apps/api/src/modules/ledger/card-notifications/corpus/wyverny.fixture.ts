import { approval, type CorpusEntry, cancellation, IGNORED, sms } from './entries.fixture';

/** Samples quoted in the parser comments of wyverny/manage_money_app (2012-13); "\n" in a comment is a line break. */
const source = (parser: string) =>
  `github.com/wyverny/manage_money_app src/com/lcm/data/parse/${parser}.java (c7127f0)`;

export const wyvernyEntries: CorpusEntry[] = [
  sms(
    '씨티카드(5*3*)\n노병석님\n11/12 14:04\n일시불 12,590원\n누계 70,193원\nSK텔레콤자동',
    source('CityCreditSmsParser'),
    '2012-11-12 14:05',
    approval({ company: '씨티', amount: 12590, merchant: 'SK텔레콤자동', at: '2012-11-12 14:04', cumulative: 70193 }),
  ),
  sms(
    '[현대카드M]-승인 김태*님 22,000원(일시불) 소백 누적:498,660원',
    source('HyunDaeCardSmsParser'),
    '2012-11-13 12:30',
    approval({ company: '현대', amount: 22000, merchant: '소백', at: null, cumulative: 498660 }),
  ),
  sms(
    '기업BC(9*5*)김보람님.11/13 13:14.일시불31,300원.누적금액2,825,155원.도스타코스',
    source('IBKBCCreditSmsParser'),
    '2012-11-13 13:15',
    approval({ company: 'BC', amount: 31300, merchant: '도스타코스', at: '2012-11-13 13:14', cumulative: 2825155 }),
  ),
  sms(
    '기업BC(8*5*)김보람님.11/13 12:22.일시불.3,000원.6TOP적립예정.바이더웨이홍대사랑점',
    source('IBKBCCreditSmsParser'),
    '2012-11-13 12:23',
    approval({ company: 'BC', amount: 3000, merchant: '바이더웨이홍대사랑점', at: '2012-11-13 12:22' }),
  ),
  sms(
    '[KB카드] 이승한님 8*9*카드 03월06일01:01 3000원 훼리미리마트 매탄 사용',
    source('KBCreditSmsParser'),
    '2013-03-06 01:02',
    approval({ company: 'KB국민', amount: 3000, merchant: '훼리미리마트 매탄', at: '2013-03-06 01:01' }),
  ),
  sms(
    'KB국민체크(5*3*) 김진아님 11/13 15:52 \t276,200원 연세송도외과의 사용',
    source('KBKookMinCheckSmsParser'),
    '2012-11-13 15:53',
    approval({ company: 'KB국민', amount: 276200, merchant: '연세송도외과의', at: '2012-11-13 15:52' }),
  ),
  sms(
    'KB국민카드 오규환님 11/11 17:12 134,850원(06월) \t11번가(1599-011 누적 1,430,104원',
    source('KBKookMinCreditSmsParser'),
    '2012-11-11 17:13',
    approval({
      company: 'KB국민',
      amount: 134850,
      merchant: '11번가(1599-011',
      months: 6,
      at: '2012-11-11 17:12',
      cumulative: 1430104,
    }),
  ),
  sms(
    '[외환카드]노병석님    45,180원 (주)이마트       누적액  1,939,380 11/06 23:41',
    source('KEBCreditSmsParser'),
    '2012-11-06 23:42',
    approval({ company: '하나', amount: 45180, merchant: '(주)이마트', at: '2012-11-06 23:41', cumulative: 1939380 }),
  ),
  sms(
    '롯데 이정*(2*6*) 11,000원 취소 11/10 15:44 롯데쇼핑(주) 평촌점 누적639,420원   ',
    source('LotteCreditSmsParser'),
    '2012-11-10 15:45',
    cancellation({
      company: '롯데',
      amount: 11000,
      merchant: '롯데쇼핑(주) 평촌점',
      at: '2012-11-10 15:44',
      cumulative: 639420,
    }),
  ),
  sms(
    '삼성카드승인 \n11/13 00:50\n7,000원\n일시불\nGS25죽전단대점\n*누적\n2,827,070원',
    source('SamsungCreditSmsParser'),
    '2012-11-13 00:51',
    approval({
      company: '삼성',
      amount: 7000,
      merchant: 'GS25죽전단대점',
      at: '2012-11-13 00:50',
      cumulative: 2827070,
    }),
  ),
  sms(
    '신한체크승인    01/18 23:05     4,150원         뉴월드마트      잔액   355,041원',
    source('ShinhanCheckSmsParser'),
    '2013-01-18 23:06',
    approval({ company: '신한', amount: 4150, merchant: '뉴월드마트', at: '2013-01-18 23:05' }),
  ),
  sms(
    '신한체크승인    05/03 21:04     4,350원         （주）준민유통  잔액   100,779원',
    source('ShinhanCheckSmsParser'),
    '2013-05-03 21:05',
    approval({ company: '신한', amount: 4350, merchant: '(주)준민유통', at: '2013-05-03 21:04' }),
  ),
  sms(
    '신한카드정상승인임창묵님        11/06 23:24     38,070원 (일시불) 인터넷교보문고',
    source('ShinhanCreditSmsParser'),
    '2012-11-06 23:25',
    approval({ company: '신한', amount: 38070, merchant: '인터넷교보문고', at: '2012-11-06 23:24' }),
  ),
  sms(
    '신한카드정상승인임창묵님        11/06 20:38     24,230원(일시불) 하모니마트',
    source('ShinhanCreditSmsParser'),
    '2012-11-06 20:39',
    approval({ company: '신한', amount: 24230, merchant: '하모니마트', at: '2012-11-06 20:38' }),
  ),
  sms(
    '신한카드정상승인임창묵님        11/06 18:09     13,320원(일시불) 예스이십사 주식',
    source('ShinhanCreditSmsParser'),
    '2012-11-06 18:10',
    approval({ company: '신한', amount: 13320, merchant: '예스이십사 주식', at: '2012-11-06 18:09' }),
  ),
  sms(
    '신한카드정상승인임창묵님        11/06 12:18     4,050원(일시불) 파리바게뜨대륭６',
    source('ShinhanCreditSmsParser'),
    '2012-11-06 12:19',
    approval({ company: '신한', amount: 4050, merchant: '파리바게뜨대륭6', at: '2012-11-06 12:18' }),
  ),
  sms(
    '신한법인카드9014승인 10/27 00:51      100,400원 맥주창고        잔액1,677,600원',
    source('ShinhanCreditSmsParser'),
    '2012-10-27 00:52',
    approval({ company: '신한', last4: '9014', amount: 100400, merchant: '맥주창고', at: '2012-10-27 00:51' }),
  ),
  sms(
    '신한법인카드9014승인 10/26 21:56      387,000원 6가             잔액1,807,800원',
    source('ShinhanCreditSmsParser'),
    '2012-10-26 21:57',
    approval({ company: '신한', last4: '9014', amount: 387000, merchant: '6가', at: '2012-10-26 21:56' }),
  ),
  sms(
    '신한카드승인지세환님 11/13 20:20 5,590원(일시불) 크린토피아 누적1,177,725원',
    source('ShinhanCreditSmsParser'),
    '2012-11-13 20:21',
    approval({ company: '신한', amount: 5590, merchant: '크린토피아', at: '2012-11-13 20:20', cumulative: 1177725 }),
  ),
  sms(
    '[체크.승인]\n9,000원\n우리카드(2*7*)강이화님\n11/13 19:10\n지급가능액5,300,847원\n탐앤탐스',
    source('WooriCheckSmsParser'),
    '2012-11-13 19:11',
    approval({ company: '우리', amount: 9000, merchant: '탐앤탐스', at: '2012-11-13 19:10' }),
  ),
  // The monthly bill, not a purchase.
  sms(
    '[신한카드]       오규환님 11/20결제금액(11/12기준)     20,420원(결제:농협중앙)',
    source('ShinhanCreditSmsParser'),
    '2012-11-12 09:00',
    IGNORED,
  ),
];
