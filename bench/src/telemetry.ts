/**
 * `pnpm bench --telemetry`: the api with tracing and metrics on, as operators run it (issue 18, item 10).
 * The parent plays the collector and Prometheus: an OTLP/HTTP sink that reads and drops each export, and a
 * scraper of the child's `/metrics`. Both live outside the child, as they do in production, so the child pays
 * only what an api replica pays: sampling, span building, batching, export and exposition.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The sampler of a `--telemetry` run: 10 % of traces, as the issue asks (parent-based, so replicas agree). */
export const TELEMETRY_SAMPLE_RATIO = 0.1;
/** Prometheus scrapes every 15 s by default; every 5 s puts a scrape into every measured slice. */
export const SCRAPE_INTERVAL_MS = 5_000;

export interface TelemetryConfig {
  /** `OTEL_EXPORTER_OTLP_ENDPOINT` of the child. */
  otlpEndpoint: string;
  sampleRatio: number;
}

export interface TelemetryCounts {
  exports: number;
  exportedBytes: number;
  scrapes: number;
  failedScrapes: number;
}

export interface OtlpSink {
  url: string;
  counts(): Pick<TelemetryCounts, 'exports' | 'exportedBytes'>;
  close(): Promise<void>;
}

/**
 * A collector's answer to an OTLP/HTTP export: an empty `ExportTraceServiceResponse` in the request's
 * encoding, an empty body for protobuf (the default, decision O17) and `{}` for JSON.
 */
export function answerOtlpExport(request: IncomingMessage, response: ServerResponse): void {
  if (request.headers['content-type']?.startsWith('application/x-protobuf')) {
    response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  } else {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  }
}

export async function startOtlpSink(): Promise<OtlpSink> {
  let exports = 0;
  let exportedBytes = 0;
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => {
      exportedBytes += chunk.length;
    });
    request.on('end', () => {
      exports += 1;
      answerOtlpExport(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts: () => ({ exports, exportedBytes }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface Scraper {
  counts(): Pick<TelemetryCounts, 'scrapes' | 'failedScrapes'>;
  stop(): void;
}

/** Reads the whole exposition every `intervalMs`, as Prometheus would. */
export function startScraper(metricsUrl: string, intervalMs = SCRAPE_INTERVAL_MS): Scraper {
  let scrapes = 0;
  let failedScrapes = 0;
  const scrape = async () => {
    try {
      const response = await fetch(metricsUrl);
      await response.text();
      if (response.ok) scrapes += 1;
      else failedScrapes += 1;
    } catch {
      failedScrapes += 1;
    }
  };
  const timer = setInterval(() => void scrape(), intervalMs);
  return {
    counts: () => ({ scrapes, failedScrapes }),
    stop: () => clearInterval(timer),
  };
}

/** The child's environment for tracing: the standard variables, so the api reads them as in production. */
export function tracingEnvironment(config: TelemetryConfig): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: config.otlpEndpoint,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: String(config.sampleRatio),
  };
}
