/** Where code reads the time, so tests and jobs can set it (the api, the worker and the membership code). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
