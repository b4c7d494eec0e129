import { approval, type CorpusEntry, cancellation, sms } from './entries.fixture';

const SOURCE =
  'github.com/ncrash/cbmax trunk/cbmax/core-api/src/test/java/net/ncrash/cbmax/core/creditcard/CreditCardSmsPaymentParserCodeFixtureTest.java (f768046)';

/** SMS of 2010 (pre-[Web발신] layouts), one card holder, several issuers. */
export const cbmaxEntries: CorpusEntry[] = [
  sms(
    '씨티카드 강대권님 승인내역 03월13일 19:47 이마트구로점 40,410원 일시불',
    SOURCE,
    '2010-03-13 19:48',
    approval({ company: '씨티', amount: 40410, merchant: '이마트구로점', at: '2010-03-13 19:47' }),
  ),
  sms(
    '씨티카드 강대권님 승인내역 05월09일 22:41 (주)인터파크(일반 65,550원 11개월 할부',
    SOURCE,
    '2010-05-09 22:42',
    approval({ company: '씨티', amount: 65550, merchant: '(주)인터파크(일반', months: 11, at: '2010-05-09 22:41' }),
  ),
  sms(
    '씨티카드 강대권님 승인취소 05월09일 22:42 (주)인터파크(일반 65,550원',
    SOURCE,
    '2010-05-09 22:43',
    cancellation({ company: '씨티', amount: 65550, merchant: '(주)인터파크(일반', at: '2010-05-09 22:42' }),
  ),
  sms(
    '[일시불.승인]\n186,000원\n우리BC(3*8*)강대권님\n04/07 23:17\n양은냄비',
    SOURCE,
    '2010-04-07 23:18',
    approval({ company: 'BC', amount: 186000, merchant: '양은냄비', at: '2010-04-07 23:17' }),
  ),
  sms(
    '[일시불.승인]\n348,600원\n농협BC(1*0*)강대권님\n01/24 16:16\n(주)테크노에어포트몰',
    SOURCE,
    '2010-01-24 16:17',
    approval({ company: 'BC', amount: 348600, merchant: '(주)테크노에어포트몰', at: '2010-01-24 16:16' }),
  ),
  sms(
    '[승인취소]\n22,500원\n우리BC(0*5*)강대권님\n04/24 19:28\n(주)인터파크INT',
    SOURCE,
    '2010-04-24 19:29',
    cancellation({ company: 'BC', amount: 22500, merchant: '(주)인터파크INT', at: '2010-04-24 19:28' }),
  ),
  sms(
    '\n[10개월.승인]\n150,100원\n우리BC(3*8*)강대권님\n04/23 23:33\n(주)인터파크INT',
    SOURCE,
    '2010-04-23 23:34',
    approval({ company: 'BC', amount: 150100, merchant: '(주)인터파크INT', months: 10, at: '2010-04-23 23:33' }),
  ),
  sms(
    '[KB체크]\n강대권님\n04월05일12:47\n광양불고기\n52,000원 사용',
    SOURCE,
    '2010-04-05 12:48',
    approval({ company: 'KB국민', amount: 52000, merchant: '광양불고기', at: '2010-04-05 12:47' }),
  ),
  sms(
    '[KB카드]\n강대권님\n03월27일17:13\n이마트구로점\n40,480원 사용',
    SOURCE,
    '2010-03-27 17:14',
    approval({ company: 'KB국민', amount: 40480, merchant: '이마트구로점', at: '2010-03-27 17:13' }),
  ),
  sms(
    '\n[KB카드]\n강대권님\n05월09일22:45\n(주)인터파크INT\n53,200원\n할부:12개월',
    SOURCE,
    '2010-05-09 22:46',
    approval({ company: 'KB국민', amount: 53200, merchant: '(주)인터파크INT', months: 12, at: '2010-05-09 22:45' }),
  ),
  sms(
    '\n[KB카드]\n강대권님\n05월09일22:46\n(주)인터파크INT\n53,200원\n승인취소',
    SOURCE,
    '2010-05-09 22:47',
    cancellation({ company: 'KB국민', amount: 53200, merchant: '(주)인터파크INT', at: '2010-05-09 22:46' }),
  ),
  sms(
    '신한카드정상승인강대권님        04/13 13:51     200,570원(일시불) （주）인터파크',
    SOURCE,
    '2010-04-13 13:52',
    approval({ company: '신한', amount: 200570, merchant: '(주)인터파크', at: '2010-04-13 13:51' }),
  ),
  sms(
    '신한카드승인취소강대권님        04/13 13:57     200,570원(일시불) （주）인터파크',
    SOURCE,
    '2010-04-13 13:58',
    cancellation({ company: '신한', amount: 200570, merchant: '(주)인터파크', at: '2010-04-13 13:57' }),
  ),
  sms(
    '신한카드정상승인강대권님 05/09 22:50 65,550원(11개월) （주）인터파크',
    SOURCE,
    '2010-05-09 22:51',
    approval({ company: '신한', amount: 65550, merchant: '(주)인터파크', months: 11, at: '2010-05-09 22:50' }),
  ),
  sms(
    '신한카드승인취소강대권님 05/09 22:50 65,550원(11개월) （주）인터파크',
    SOURCE,
    '2010-05-09 22:52',
    cancellation({ company: '신한', amount: 65550, merchant: '(주)인터파크', months: 11, at: '2010-05-09 22:50' }),
  ),
  sms(
    '[외환카드]강대권님     15,720원 승인 택시(서울)한국스 04/08 01:22',
    SOURCE,
    '2010-04-08 01:23',
    approval({ company: '하나', amount: 15720, merchant: '택시(서울)한국스', at: '2010-04-08 01:22' }),
  ),
  sms(
    '[외환카드]강대권님 65,550원 할부 11개월 승인 인터파크(쇼핑몰) 05/09 22:53',
    SOURCE,
    '2010-05-09 22:54',
    approval({ company: '하나', amount: 65550, merchant: '인터파크(쇼핑몰)', months: 11, at: '2010-05-09 22:53' }),
  ),
  sms(
    '[외환카드]강대권님 65,550원 승인취소 인터파크(쇼핑몰) 05/09 22:54',
    SOURCE,
    '2010-05-09 22:55',
    cancellation({ company: '하나', amount: 65550, merchant: '인터파크(쇼핑몰)', at: '2010-05-09 22:54' }),
  ),
  sms(
    '[현대카드C]\n강대권님\n12:10\n2,400원(일시불)\n정상승인\n온누리조은약국',
    SOURCE,
    '2010-04-20 12:11',
    approval({ company: '현대', amount: 2400, merchant: '온누리조은약국', at: '2010-04-20 12:10' }),
  ),
  sms(
    '[현대카드C]-승인\n강대권님\n18:22\n3,780원(일시불)\n（주）현대홈쇼핑ＫＭＰＩ（일',
    SOURCE,
    '2010-04-21 00:05',
    approval({ company: '현대', amount: 3780, merchant: '(주)현대홈쇼핑KMPI(일', at: '2010-04-20 18:22' }),
  ),
  sms(
    '롯데카드 강대권님 939,900원 일시불 04/17 10:16 이베이옥션                       ',
    SOURCE,
    '2010-04-17 10:17',
    approval({ company: '롯데', amount: 939900, merchant: '이베이옥션', at: '2010-04-17 10:16' }),
  ),
  sms(
    '롯데카드 강대권님 33,800원 일시불 04/21 23:55 (주)이니시스                      ',
    SOURCE,
    '2010-04-21 23:56',
    approval({ company: '롯데', amount: 33800, merchant: '(주)이니시스', at: '2010-04-21 23:55' }),
  ),
  sms(
    '롯데카드 강대권님 65,550원 할부(11) 05/09 23:02 (주)인터파크',
    SOURCE,
    '2010-05-09 23:03',
    approval({ company: '롯데', amount: 65550, merchant: '(주)인터파크', months: 11, at: '2010-05-09 23:02' }),
  ),
  sms(
    '롯데카드 강대권님 65,550원 할부(11)취소 05/09 23:02 (주)인터파크',
    SOURCE,
    '2010-05-09 23:04',
    cancellation({ company: '롯데', amount: 65550, merchant: '(주)인터파크', months: 11, at: '2010-05-09 23:02' }),
  ),
  sms(
    '삼성카드\n04/30 09:58\n1.0% 보너스클럽\n(주)인터파크INT\n63,650원',
    SOURCE,
    '2010-04-30 09:59',
    approval({ company: '삼성', amount: 63650, merchant: '(주)인터파크INT', at: '2010-04-30 09:58' }),
  ),
  sms(
    '삼성카드취소\n04/30 09:59\n(주)인터파크INT\n-63,650원\n일시불\n감사합니다',
    SOURCE,
    '2010-04-30 10:00',
    cancellation({ company: '삼성', amount: 63650, merchant: '(주)인터파크INT', at: '2010-04-30 09:59' }),
  ),
  sms(
    '삼성카드\n04/30 10:00\n1.0% 보너스클럽\n(주)인터파크INT\n110,200원\n3개월할부',
    SOURCE,
    '2010-04-30 10:01',
    approval({ company: '삼성', amount: 110200, merchant: '(주)인터파크INT', months: 3, at: '2010-04-30 10:00' }),
  ),
  sms(
    '삼성카드취소\n04/30 10:01\n(주)인터파크INT\n-110,200원\n할부\n감사합니다',
    SOURCE,
    '2010-04-30 10:02',
    cancellation({ company: '삼성', amount: 110200, merchant: '(주)인터파크INT', at: '2010-04-30 10:01' }),
  ),
  sms(
    '하나SK카드(1*8*)강대권님 05/09 22:18 일시불/ 56,050원/승인/ (주)인터파크INT',
    SOURCE,
    '2010-05-09 22:19',
    approval({ company: '하나', amount: 56050, merchant: '(주)인터파크INT', at: '2010-05-09 22:18' }),
  ),
  sms(
    '하나SK카드(1*8*)강대권님 05/09 22:19 일시불/ 56,050원/승인취소/ (주)인터파크INT',
    SOURCE,
    '2010-05-09 22:20',
    cancellation({ company: '하나', amount: 56050, merchant: '(주)인터파크INT', at: '2010-05-09 22:19' }),
  ),
  sms(
    '하나SK카드(1*8*)강대권님 05/09 22:21 할부/11개월 149,150원/승인/ (주)인터파크INT',
    SOURCE,
    '2010-05-09 22:22',
    approval({ company: '하나', amount: 149150, merchant: '(주)인터파크INT', months: 11, at: '2010-05-09 22:21' }),
  ),
  sms(
    '하나카드취소 강대권님 2010년05월11일 -45,700 철도승차권발매',
    SOURCE,
    '2010-05-11 12:00',
    cancellation({ company: '하나', amount: 45700, merchant: '철도승차권발매', at: null }),
  ),
];
