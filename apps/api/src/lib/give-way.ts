import { setTimeout as sleepFor } from 'node:timers/promises';

/**
 * Contract requests this process has received, counted as they arrive (`plugins/infrastructure.ts`): a long job
 * compares the count before and after one of its steps to learn whether anyone else was served meanwhile.
 */
export class Traffic {
  private count = 0;

  arrived(): void {
    this.count += 1;
  }

  arrivals(): number {
    return this.count;
  }
}

export interface GiveWayOptions {
  traffic: Pick<Traffic, 'arrivals'>;
  /**
   * The share of the time a long job may work while other requests arrive (0 < share ≤ 1): after a step during
   * which one did, it waits until its step was this share of the time since the step began. 1 never waits.
   * (`IMPORT_BUSY_SHARE` is at least 0.1: a pause at most nine times its step.)
   */
  share: number;
  /** Told of each pause, in seconds (the api counts them in `nestegg_give_way_pause_seconds_total`). */
  paused?: (seconds: number) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Runs one step of a long job (a batch of a 50,000-row import), then gives way if others were served meanwhile. */
export type GiveWay = <T>(step: () => Promise<T>) => Promise<T>;

/**
 * A long job inside one request (decision P35) works in steps; a step during which other requests arrived is
 * followed by a pause, so the job takes at most `share` of the cores (the api's and PostgreSQL's) from them.
 * With nobody else about, it runs at full speed.
 */
export function giveWay({
  traffic,
  share,
  paused = () => {},
  now = () => performance.now(),
  sleep = (ms) => sleepFor(ms),
}: GiveWayOptions): GiveWay {
  const pauseFactor = 1 / share - 1;
  return async (step) => {
    const arrivalsBefore = traffic.arrivals();
    const started = now();
    const result = await step();
    const worked = now() - started;
    if (pauseFactor > 0 && traffic.arrivals() !== arrivalsBefore) {
      const pause = worked * pauseFactor;
      paused(pause / 1000);
      await sleep(pause);
    }
    return result;
  };
}

/** Never waits: for jobs with nobody to give way to (tests, command-line tools). */
export const fullSpeed: GiveWay = (step) => step();
