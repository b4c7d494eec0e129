import { describe, expect, it } from 'vitest';
import { dateShape, inferDateOrder, parseTime, resolveDate } from './dates.js';
import type { DateOrder } from './types.js';

function read(cell: string, order: DateOrder = 'YMD', anchor: string | null = null) {
  const shape = dateShape(cell);
  return shape ? resolveDate(shape, order, cell, anchor) : null;
}

describe('dates', () => {
  it.each([
    ['2026.05.14', '2026-05-14', null],
    ['2026.5.4.', '2026-05-04', null],
    ['2026-05-14 12:31', '2026-05-14', '12:31'],
    ['2026/05/14 12:31:05', '2026-05-14', '12:31:05'],
    ['2026-05-14T12:31:05+09:00', '2026-05-14', '12:31:05'],
    ['20260514', '2026-05-14', null],
    ['20260514123105', '2026-05-14', '12:31:05'],
    ['2026년 5월 14일', '2026-05-14', null],
    ['2026.05.14(목)', '2026-05-14', null],
    ['2026-05-14 오후 1:05', '2026-05-14', '13:05'],
    ['14 May 2026', '2026-05-14', null],
    ['May 14, 2026', '2026-05-14', null],
    ['14-May-26', '2026-05-14', null],
    ['２０２６．０５．１４', '2026-05-14', null],
  ])('%s → %s %s', (cell, date, time) => {
    expect(read(cell)).toEqual({ date, time });
  });

  it('reads 26/05/14 as YY/MM/DD under YMD and 01/02/2026 under DMY and MDY', () => {
    expect(read('26/05/14', 'YMD')).toEqual({ date: '2026-05-14', time: null });
    expect(read('01/02/2026', 'DMY')).toEqual({ date: '2026-02-01', time: null });
    expect(read('01/02/2026', 'MDY')).toEqual({ date: '2026-01-02', time: null });
    expect(read('01/02/2026 09:15', 'MDY')).toEqual({ date: '2026-01-02', time: '09:15' });
  });

  it('gives dates without a year the latest year on or before the anchor', () => {
    expect(read('05월14일', 'YMD', '2026-05-31')).toEqual({ date: '2026-05-14', time: null });
    expect(read('12월30일', 'YMD', '2026-01-31')).toEqual({ date: '2025-12-30', time: null });
    expect(read('05/14', 'YMD', '2026-06-30')).toEqual({ date: '2026-05-14', time: null });
    expect(read('14/05', 'DMY', '2026-06-30')).toEqual({ date: '2026-05-14', time: null });
    expect(read('05월14일 13:02', 'YMD', '2026-05-31')).toEqual({ date: '2026-05-14', time: '13:02' });
    expect(read('05월14일')).toEqual({
      error: 'the date "05월14일" has no year, and neither the file nor the upload says which year it is',
    });
  });

  it('says why a date is no calendar date', () => {
    expect(read('2025-13-01')).toEqual({ error: 'the date "2025-13-01" is not a calendar date' });
    expect(read('2025-02-29')).toEqual({ error: 'the date "2025-02-29" is not a calendar date' });
    expect(read('2024-02-29')).toEqual({ date: '2024-02-29', time: null });
    expect(read('01/02/2026', 'YMD')).toMatchObject({ error: expect.stringMatching(/ends with its year/) });
  });

  it.each(['', '합계', '12,345', '2026-05-14 25:00', '1234567', 'abc 2026'])('no date in %j', (cell) => {
    expect(dateShape(cell)).toBeNull();
  });

  it.each([
    ['12:31', '12:31'],
    ['12:31:05', '12:31:05'],
    ['오전 12:05', '00:05'],
    ['1:05 PM', '13:05'],
    ['123105', '12:31:05'],
    ['1231', '12:31'],
    ['24:00', null],
    ['12시', null],
  ])('time %s → %s', (cell, time) => {
    expect(parseTime(cell)).toBe(time);
  });
});

describe('inferDateOrder', () => {
  it('YMD when every date has its year first (nothing to tell)', () => {
    expect(inferDateOrder(['2026.05.14', '20260515', '합계'])).toEqual({ dateOrder: 'YMD', candidates: ['YMD'] });
  });

  it('tells DMY from a day above 12', () => {
    expect(inferDateOrder(['01/02/2026', '13/02/2026'])).toEqual({ dateOrder: 'DMY', candidates: ['DMY'] });
    expect(inferDateOrder(['02/01/2026', '02/13/2026'])).toEqual({ dateOrder: 'MDY', candidates: ['MDY'] });
  });

  it('tells the order from the only one under which the dates are sorted', () => {
    // DMY: 1 Feb, 2 Feb, 1 Mar (sorted); MDY: 2 Jan, 2 Feb, 3 Jan (not)
    expect(inferDateOrder(['01/02/2026', '02/02/2026', '01/03/2026'])).toEqual({
      dateOrder: 'DMY',
      candidates: ['DMY'],
    });
    // sorted newest first reads too
    expect(inferDateOrder(['01/03/2026', '02/02/2026', '01/02/2026'])).toEqual({
      dateOrder: 'DMY',
      candidates: ['DMY'],
    });
  });

  it('reads 26/05/14 as YY/MM/DD: DMY would put the rows years apart', () => {
    expect(inferDateOrder(['26/05/14', '26/05/15', '26/05/16'])).toEqual({ dateOrder: 'YMD', candidates: ['YMD'] });
  });

  it('returns null with the candidates when the data cannot tell', () => {
    expect(inferDateOrder(['01/02/2026'])).toEqual({ dateOrder: null, candidates: ['DMY', 'MDY'] });
    expect(inferDateOrder(['03/04/2026', '03/04/2026'])).toEqual({ dateOrder: null, candidates: ['DMY', 'MDY'] });
  });

  it('breaks a tie by the statement end or the day the file is taken in: the order under which every date is recent', () => {
    // One day written YY.MM.DD: 2026-03-01 or 2001-03-26 (DMY); sorted and within 400 days either way.
    expect(inferDateOrder(['26.03.01', '26.03.01'])).toEqual({ dateOrder: null, candidates: ['YMD', 'DMY'] });
    expect(inferDateOrder(['26.03.01', '26.03.01'], '2026-04-01')).toEqual({ dateOrder: 'YMD', candidates: ['YMD'] });
    // Wise's days ≤ 12: DMY is 2–12 March, MDY February to December (months after the upload): DMY.
    const wise = ['02-03-2026', '05-03-2026', '07-03-2026', '09-03-2026', '12-03-2026'];
    expect(inferDateOrder(wise)).toEqual({ dateOrder: null, candidates: ['DMY', 'MDY'] });
    expect(inferDateOrder(wise, '2026-04-01')).toEqual({ dateOrder: 'DMY', candidates: ['DMY'] });
    // In December both are past: still ask.
    expect(inferDateOrder(wise, '2026-12-31')).toEqual({ dateOrder: null, candidates: ['DMY', 'MDY'] });
  });

  it('tells month/day pairs without a year apart as YMD (month first) or DMY', () => {
    expect(inferDateOrder(['05/14', '05/15'])).toEqual({ dateOrder: 'YMD', candidates: ['YMD'] });
    expect(inferDateOrder(['14/05', '15/05'])).toEqual({ dateOrder: 'DMY', candidates: ['DMY'] });
  });
});
