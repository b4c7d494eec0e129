/**
 * Sends the example scenario's steps to a listening api and holds each answer against its recording
 * (decision C44). Real HTTP, in order; a step's references are filled from the answers of the steps before it.
 */
import {
  differences,
  type ExampleCaller,
  type ExampleStep,
  labelOf,
  MissingReference,
  type Recorded,
  resolve,
} from '@nestegg/openapi/scenario';
import sharp from 'sharp';
import type { ExampleProviders } from './providers.js';

export interface StepOutcome {
  step: ExampleStep;
  status: number;
  body?: unknown;
  contentType: string;
  /** Where the answer departs from the recording (empty when it matches). */
  problems: string[];
}

interface Outgoing {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | FormData;
}

/** A body that is not JSON (image bytes) is read to its end and not kept. */
const discarded = async (response: Response): Promise<undefined> => {
  await response.arrayBuffer();
  return undefined;
};

/** What the app sends; sessions list it. */
const USER_AGENT = 'Nestegg/3.4.1 (Android 15; SM-S928N)';

const tinyPng = () =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: '#f4f1ea' } })
    .png()
    .toBuffer();

export class ExampleRunner {
  readonly answers: Recorded = {};
  private readonly tokens = new Map<ExampleCaller, string>();

  constructor(
    private readonly baseUrl: string,
    private readonly operations: Map<string, { method: string; path: string }>,
    private readonly providers: ExampleProviders,
    private readonly recorded: Recorded,
  ) {}

  /** A session made outside the api's examples (an administrator comes from `npm run admin`). */
  signIn(caller: ExampleCaller, token: string): void {
    this.tokens.set(caller, token);
  }

  async run(step: ExampleStep): Promise<StepOutcome> {
    let outgoing: Outgoing;
    try {
      outgoing = await this.request(step);
    } catch (error) {
      if (!(error instanceof MissingReference)) throw error;
      return { step, status: 0, contentType: '', problems: [`not sent: ${error.message}`] };
    }
    const response = await fetch(outgoing.url, {
      method: outgoing.method,
      headers: outgoing.headers,
      ...(outgoing.body === undefined ? {} : { body: outgoing.body }),
    });
    const contentType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const body = /json/.test(contentType) ? await response.json() : await discarded(response);
    const label = labelOf(step);
    this.answers[label] = { status: response.status, ...(body === undefined ? {} : { body }) };
    this.noteSession(step, body);
    return { step, status: response.status, body, contentType, problems: this.problems(step, response.status, body) };
  }

  private problems(step: ExampleStep, status: number, body: unknown): string[] {
    const problems = status === step.status ? [] : [`status ${step.status}, got ${status}: ${JSON.stringify(body)}`];
    const recording = this.recorded[labelOf(step)];
    if (!recording) return [...problems, 'no recording'];
    return [...problems, ...differences(recording.body, body)];
  }

  private noteSession(step: ExampleStep, body: unknown): void {
    const token = (body as { token?: unknown } | undefined)?.token;
    if (!step.signsIn || typeof token !== 'string') return;
    this.tokens.set(step.signsIn, token);
    if (step.signsIn === 'member') this.tokens.set('premium', token);
  }

  private async request(step: ExampleStep): Promise<Outgoing> {
    const operation = this.operations.get(step.operation);
    if (!operation) throw new Error(`no operation ${step.operation}`);
    const params = resolve(step.params ?? {}, this.answers) as Record<string, unknown>;
    const query = resolve(step.query ?? {}, this.answers) as Record<string, unknown>;
    const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params[name])));
    const search = new URLSearchParams(
      Object.entries(query).map(([name, value]): [string, string] => [name, String(value)]),
    );
    const headers: Record<string, string> = { 'user-agent': USER_AGENT };
    const token = this.tokens.get(step.as);
    if (token) headers.authorization = `Bearer ${token}`;
    const outgoing: Outgoing = {
      url: `${this.baseUrl}${path}${search.size ? `?${search}` : ''}`,
      method: operation.method,
      headers,
    };
    if (step.multipart) outgoing.body = await this.form(step.multipart);
    else if (step.body !== undefined) {
      headers['content-type'] = 'application/json';
      outgoing.body = JSON.stringify(await this.substituted(step, resolve(step.body, this.answers)));
    }
    for (const [target, kind] of Object.entries(step.substitute ?? {})) {
      if (target.startsWith('headers.'))
        headers[target.slice('headers.'.length)] = await this.providers.substitute(kind, this.answers);
    }
    return outgoing;
  }

  private async substituted(step: ExampleStep, body: unknown): Promise<unknown> {
    const copy = structuredClone(body) as Record<string, unknown>;
    for (const [target, kind] of Object.entries(step.substitute ?? {})) {
      if (target.startsWith('body.')) {
        copy[target.slice('body.'.length)] = await this.providers.substitute(kind, this.answers);
      }
    }
    return copy;
  }

  private async form(parts: NonNullable<ExampleStep['multipart']>): Promise<FormData> {
    const form = new FormData();
    for (const [name, part] of Object.entries(parts)) {
      if (typeof part === 'string') form.append(name, part);
      else if ('text' in part) form.append(name, new Blob([part.text], { type: part.type }), part.filename);
      else form.append(name, new Blob([new Uint8Array(await tinyPng())], { type: 'image/png' }), part.filename);
    }
    return form;
  }
}

/** The scenario's recordings as they would be written after `outcomes`. */
export function recordingOf(outcomes: StepOutcome[]): Recorded {
  return Object.fromEntries(
    outcomes.map(({ step, status, body }) => [labelOf(step), { status, ...(body === undefined ? {} : { body }) }]),
  );
}
