/** Decision P35: a long job's step is followed by a pause only when other requests arrived during it. */
import { describe, expect, it } from 'vitest';
import { fullSpeed, giveWay, Traffic } from './give-way.js';

/** A clock the steps move, and a sleep that records its pauses instead of waiting. */
function harness(share: number) {
  const traffic = new Traffic();
  let clock = 0;
  const pauses: number[] = [];
  const reported: number[] = [];
  const step = giveWay({
    traffic,
    share,
    now: () => clock,
    sleep: async (ms) => {
      pauses.push(ms);
    },
    paused: (seconds) => reported.push(seconds),
  });
  const work = (ms: number, arrivals = 0) =>
    step(async () => {
      clock += ms;
      for (let count = 0; count < arrivals; count += 1) traffic.arrived();
      return ms;
    });
  return { work, pauses, reported, traffic };
}

describe('giving way', () => {
  it('never pauses while nobody else is served', async () => {
    const { work, pauses } = harness(0.5);
    expect(await work(120)).toBe(120);
    await work(80);
    expect(pauses).toEqual([]);
  });

  it('after a step during which requests arrived, waits until the step was its share of the time', async () => {
    const { work, pauses, reported } = harness(0.5);
    await work(120, 1);
    await work(80);
    await work(60, 3);
    expect(pauses).toEqual([120, 60]);
    expect(reported).toEqual([0.12, 0.06]);
    const third = harness(0.25);
    await third.work(100, 1);
    expect(third.pauses).toEqual([300]);
  });

  it('counts arrivals before the step as none of its business', async () => {
    const { work, pauses, traffic } = harness(0.5);
    traffic.arrived();
    await work(100);
    expect(pauses).toEqual([]);
  });

  it('a share of 1, and fullSpeed, never wait', async () => {
    const { work, pauses } = harness(1);
    await work(100, 5);
    expect(pauses).toEqual([]);
    expect(await fullSpeed(async () => 'done')).toBe('done');
  });
});
