/**
 * `pnpm --filter @nestegg/bench telemetry-spans`: the CPU time tracing adds to one request, without HTTP
 * (issue 18, item 10). One process replays what the api does per request with tracing on: the server span
 * from the request's headers and the context switch around the handler, the log line's trace fields, and two
 * statements that open spans only under a recording span; sampled requests also name, attribute and end their
 * spans, and the batch processor exports them over OTLP/HTTP to a sink in the same process (its receiving
 * counts too). CPU time per request, at sampler ratios 0, 0.1 and 1, measures in microseconds what the paired
 * HTTP run (`--telemetry-cost`) can only resolve on a quiet machine.
 *
 * `--instructions` counts instructions instead (valgrind's callgrind), which other processes do not move: each
 * ratio runs in a process of its own under callgrind, once with `COUNTED` requests and once with three times
 * as many, and the difference over the extra requests is the count per request, start-up left out.
 */

import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { contextFromHeaders, startTracing, type Tracing, traceFields } from '@nestegg/telemetry';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { answerOtlpExport } from './telemetry.js';

const HEADERS = { host: 'api', 'user-agent': 'autocannon', accept: '*/*', authorization: 'Bearer token' };
const STATEMENT = 'select "id", "email", "nickname" from "member" where "member"."id" = $1 limit $2';
const REQUESTS = 20_000;
/** Requests between pauses, so the batch processor's timer and the export run as they would under load. */
const BURST = 200;

function statement(tracing: Tracing): void {
  if (!trace.getActiveSpan()?.isRecording()) return;
  const span = tracing.tracer.startSpan('SELECT', {
    kind: SpanKind.CLIENT,
    attributes: { 'db.system.name': 'postgresql', 'db.operation.name': 'SELECT', 'db.query.text': STATEMENT },
  });
  span.end();
}

function request(tracing: Tracing): void {
  const parent = contextFromHeaders(HEADERS);
  const span = tracing.tracer.startSpan('GET', { kind: SpanKind.SERVER }, parent);
  context.with(trace.setSpan(parent, span), () => {
    traceFields();
    statement(tracing);
    statement(tracing);
    if (!span.isRecording()) return;
    span.setAttributes({ 'http.request.method': 'GET', 'url.path': '/api/auth/profile', 'url.scheme': 'http' });
    span.updateName('GET /api/auth/profile');
    span.setAttributes({ 'http.route': '/api/auth/profile', 'http.response.status_code': 200 });
    span.end();
  });
}

async function replay(tracing: Tracing, requests: number): Promise<void> {
  for (let index = 0; index < requests; index += 1) {
    request(tracing);
    if (index % BURST === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await tracing.flush();
}

async function microsPerRequest(tracing: Tracing): Promise<number> {
  const started = process.cpuUsage();
  await replay(tracing, REQUESTS);
  const { user, system } = process.cpuUsage(started);
  return (user + system) / REQUESTS;
}

async function withTracing<T>(ratio: string, run: (tracing: Tracing) => Promise<T>): Promise<T> {
  const sink = createServer((request, response) => {
    request.resume();
    request.on('end', () => answerOtlpExport(request, response));
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const collector = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  // The exporter reads the endpoint from the process's environment itself.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector;
  const tracing = await startTracing('telemetry-spans', {
    OTEL_EXPORTER_OTLP_ENDPOINT: collector,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: ratio,
  });
  if (!tracing) throw new Error('tracing did not start');
  try {
    return await run(tracing);
  } finally {
    await tracing.shutdown();
    sink.close();
  }
}

const RATIOS = ['0', '0.1', '1'];
/** Requests of the shorter counted run: enough that the export's code is optimised before most of them. */
const COUNTED = 50_000;

async function printMicros(): Promise<void> {
  for (const ratio of RATIOS) {
    const rounds = await withTracing(ratio, async (tracing) => {
      const measured: number[] = [];
      for (let round = 0; round < 5; round += 1) measured.push(await microsPerRequest(tracing));
      return measured.sort((a, b) => a - b);
    });
    console.log(
      `sampler ratio ${ratio}: ${rounds[2]!.toFixed(2)} µs CPU per request (median of 5 rounds of ${REQUESTS})`,
    );
  }
}

/** Instructions of this script run with `--replay <ratio> <requests>` under callgrind (all threads). */
async function instructionsOf(ratio: string, requests: number): Promise<number> {
  const script = fileURLToPath(import.meta.url);
  const { stderr } = await promisify(execFile)(
    'valgrind',
    [
      '--tool=callgrind',
      '--callgrind-out-file=/dev/null',
      process.execPath,
      ...process.execArgv,
      script,
      '--replay',
      ratio,
      String(requests),
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const refs = /I\s+refs:\s+([\d,]+)/.exec(stderr)?.[1];
  if (!refs) throw new Error(`callgrind printed no instruction count:\n${stderr}`);
  return Number(refs.replaceAll(',', ''));
}

async function printInstructions(): Promise<void> {
  for (const ratio of RATIOS) {
    const [once, thrice] = await Promise.all([instructionsOf(ratio, COUNTED), instructionsOf(ratio, 3 * COUNTED)]);
    const perRequest = (thrice - once) / (2 * COUNTED);
    console.log(`sampler ratio ${ratio}: ${Math.round(perRequest).toLocaleString('en-US')} instructions per request`);
  }
}

const [mode, ratio, requests] = process.argv.slice(2);
if (mode === '--replay') await withTracing(ratio!, (tracing) => replay(tracing, Number(requests)));
else if (mode === '--instructions') await printInstructions();
else await printMicros();
