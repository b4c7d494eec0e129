/**
 * Issue 36: the examples of the API document run (decision C44). Every step of the example scenario is sent, in
 * order, to a listening api configured as `npm start` configures it (billing test mode, the sample products,
 * the seeded default categories; local fakes for the outside providers), on a clock set to the scenario's day;
 * each answer must have the step's status and match what the document shows (`recorded.json`): the same shape
 * and values, except instants, tokens, cursors and random keys, which need only their form.
 *
 * `EXAMPLES_RECORD=1` writes the answers to `packages/openapi/src/scenario/recorded.json` instead of failing on
 * them (keeping made-up values that still match, so a new recording shows only what changed); `pnpm format` then
 * lays the file out as biome does.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '@nestegg/openapi';
import { exampleScenario, labelOf, type Recorded, stableRecording } from '@nestegg/openapi/scenario';
import { afterAll, describe, expect } from 'vitest';
import { PRODUCTS } from './modules/billing/membership/billing.fixture.js';
import { createMemberWithSession } from './test/app.js';
import { ExampleProviders } from './test/examples/providers.js';
import { ExampleRunner, recordingOf, type StepOutcome } from './test/examples/runner.js';
import { apiTest } from './test/fixtures.js';

const RECORDING = fileURLToPath(new URL('../../../packages/openapi/src/scenario/recorded.json', import.meta.url));
const SCENARIO_START = Date.parse('2026-05-14T03:12:45Z');

/** The scenario's day, with time running on from its start (windows and expiries still pass). */
const startedAt = Date.now();
const clock = { now: () => new Date(SCENARIO_START + (Date.now() - startedAt)) };

const providers = await ExampleProviders.start(clock);
afterAll(() => providers.close());

const test = apiTest(
  {
    ...providers.env(),
    BILLING_TEST_MODE: 'true',
    BILLING_PRODUCTS: PRODUCTS,
    PUBLIC_URL: 'http://localhost:3000',
  },
  { clock },
);

const operationsOf = () => {
  const document = buildOpenApiDocument();
  const operations = new Map<string, { method: string; path: string }>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item as Record<string, { operationId: string }>)) {
      operations.set(operation.operationId, { method: method.toUpperCase(), path });
    }
  }
  return operations;
};

const readRecording = (): Recorded => JSON.parse(readFileSync(RECORDING, 'utf8')) as Recorded;

const INSTANT = /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/;

/** Instants of this run (the database's own clock among them) moved onto the scenario's day, for the document. */
function onScenarioDay(value: unknown): unknown {
  if (typeof value === 'string' && INSTANT.test(value)) {
    const at = Date.parse(value);
    // The run's own instants, and those it set ahead (an undo window's end), not those of the scenario's clock.
    if (at - startedAt > -3_600_000 && at - startedAt < 31 * 86_400_000) {
      return new Date(at - startedAt + SCENARIO_START).toISOString();
    }
    return value;
  }
  if (Array.isArray(value)) return value.map(onScenarioDay);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, onScenarioDay(item)]));
  }
  return value;
}

function writeRecording(outcomes: StepOutcome[]): void {
  const fresh = onScenarioDay(recordingOf(outcomes));
  const merged = stableRecording(readRecording(), fresh);
  writeFileSync(RECORDING, `${JSON.stringify(merged, null, 2)}\n`);
}

describe('the examples of the API document', () => {
  test('run in order against a started api and get the documented answers', async ({ app }) => {
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const operations = operationsOf();
    const runner = new ExampleRunner(address, operations, providers, readRecording());
    const admin = await createMemberWithSession(app, {
      role: 'ADMIN',
      email: 'admin@nestegg.example',
      displayName: '운영자',
    });
    runner.signIn('admin', admin.token);

    const outcomes: StepOutcome[] = [];
    for (const step of exampleScenario) outcomes.push(await runner.run(step));

    const documented = new Set(exampleScenario.filter((step) => !step.setup).map((step) => step.operation));
    console.info(
      `example runner: ${outcomes.length} steps, ${documented.size} of ${operations.size} operations run their documented example`,
    );
    const recording = process.env.EXAMPLES_RECORD === '1';
    if (recording) writeRecording(outcomes);
    const failures = outcomes.flatMap(({ step, status, problems }) =>
      (recording ? (status === step.status ? [] : problems.slice(0, 1)) : problems).map(
        (problem) => `${labelOf(step)} (${step.operation}): ${problem}`,
      ),
    );
    expect(failures).toEqual([]);
    expect(documented.size).toBe(operations.size);
  });
});
