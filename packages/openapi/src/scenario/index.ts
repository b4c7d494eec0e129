/** The example scenario (decision C44): its steps, their recordings, and how an answer is held against one. */
import recorded from './recorded.json' with { type: 'json' };
import type { Recorded } from './steps.js';

export { differences, stableRecording } from './matching.js';
export { exampleScenario } from './scenario.js';
export * from './steps.js';

/** What the api answered to each step when the examples were last recorded (`EXAMPLES_RECORD=1`). */
export const recordedExamples = recorded as Recorded;
