import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One exported span, its attributes flattened to plain values. */
export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
  serviceName: string | undefined;
}

export interface OtlpReceiver {
  /** Base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it (the exporter adds `/v1/traces`). */
  url: string;
  spans(): ExportedSpan[];
  serviceNames(): string[];
  /** The content type of each export received, in order (`application/x-protobuf` or `application/json`). */
  contentTypes(): string[];
  close(): Promise<void>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value?: AnyValue };
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: KeyValue[];
  links?: Array<{ traceId: string; spanId: string }>;
}
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ spans?: OtlpSpan[] }>;
  }>;
}

function plain(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  return undefined;
}

const attributesOf = (list: KeyValue[] = []) => Object.fromEntries(list.map(({ key, value }) => [key, plain(value)]));

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The fields of one protobuf message, in wire order: a varint as a bigint, a length-delimited field (a string,
 * bytes or a nested message) and a fixed64/fixed32 as their bytes.
 */
function* fieldsOf(message: Buffer): Generator<{ field: number; value: bigint | Buffer }> {
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (at >= message.length) throw new Error('protobuf: truncated varint');
      const byte = message[at++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return result;
    }
  };
  const take = (length: number): Buffer => {
    if (at + length > message.length) throw new Error('protobuf: truncated field');
    at += length;
    return message.subarray(at - length, at);
  };
  while (at < message.length) {
    const tag = Number(varint());
    const field = tag >>> 3;
    const wireType = tag & 7;
    if (wireType === 0) yield { field, value: varint() };
    else if (wireType === 1) yield { field, value: take(8) };
    else if (wireType === 2) yield { field, value: take(Number(varint())) };
    else if (wireType === 5) yield { field, value: take(4) };
    else throw new Error(`protobuf: wire type ${wireType} is not supported`);
  }
}

const hex = (value: bigint | Buffer) => (value as Buffer).toString('hex');
const text = (value: bigint | Buffer) => (value as Buffer).toString('utf8');

// The message and field numbers below are opentelemetry-proto's (collector/trace/v1, trace/v1, common/v1).
function anyValueOf(message: Buffer): AnyValue {
  const value: AnyValue = {};
  for (const { field, value: raw } of fieldsOf(message)) {
    if (field === 1) value.stringValue = text(raw);
    else if (field === 2) value.boolValue = raw !== 0n;
    else if (field === 3) value.intValue = BigInt.asIntN(64, raw as bigint).toString();
    else if (field === 4) value.doubleValue = (raw as Buffer).readDoubleLE(0);
    else if (field === 5) {
      const values: AnyValue[] = [];
      for (const item of fieldsOf(raw as Buffer)) if (item.field === 1) values.push(anyValueOf(item.value as Buffer));
      value.arrayValue = { values };
    }
  }
  return value;
}

function keyValueOf(message: Buffer): KeyValue {
  const keyValue: KeyValue = { key: '' };
  for (const { field, value } of fieldsOf(message)) {
    if (field === 1) keyValue.key = text(value);
    else if (field === 2) keyValue.value = anyValueOf(value as Buffer);
  }
  return keyValue;
}

function linkOf(message: Buffer): { traceId: string; spanId: string } {
  const link = { traceId: '', spanId: '' };
  for (const { field, value } of fieldsOf(message)) {
    if (field === 1) link.traceId = hex(value);
    else if (field === 2) link.spanId = hex(value);
  }
  return link;
}

function spanOf(message: Buffer): OtlpSpan {
  const span: OtlpSpan = { traceId: '', spanId: '', name: '', kind: 0, attributes: [], links: [] };
  for (const { field, value } of fieldsOf(message)) {
    if (field === 1) span.traceId = hex(value);
    else if (field === 2) span.spanId = hex(value);
    else if (field === 4) span.parentSpanId = hex(value);
    else if (field === 5) span.name = text(value);
    else if (field === 6) span.kind = Number(value);
    else if (field === 9) span.attributes?.push(keyValueOf(value as Buffer));
    else if (field === 13) span.links?.push(linkOf(value as Buffer));
  }
  return span;
}

/** An `ExportTraceServiceRequest` in protobuf, read into the shape its JSON encoding has (ids in hex). */
function decodeProtobufExport(body: Buffer): OtlpExport {
  const resourceSpans: NonNullable<OtlpExport['resourceSpans']> = [];
  for (const request of fieldsOf(body)) {
    if (request.field !== 1) continue;
    const entry: NonNullable<OtlpExport['resourceSpans']>[number] = { resource: { attributes: [] }, scopeSpans: [] };
    for (const { field, value } of fieldsOf(request.value as Buffer)) {
      if (field === 1) {
        for (const attribute of fieldsOf(value as Buffer)) {
          if (attribute.field === 1) entry.resource?.attributes?.push(keyValueOf(attribute.value as Buffer));
        }
      } else if (field === 2) {
        const spans: OtlpSpan[] = [];
        for (const scope of fieldsOf(value as Buffer)) if (scope.field === 2) spans.push(spanOf(scope.value as Buffer));
        entry.scopeSpans?.push({ spans });
      }
    }
    resourceSpans.push(entry);
  }
  return { resourceSpans };
}

/**
 * A collector stand-in: accepts OTLP/HTTP exports on `POST /v1/traces`, protobuf (`application/x-protobuf`,
 * what `@opentelemetry/exporter-trace-otlp-proto` sends) or JSON (`application/json`, what
 * `@opentelemetry/exporter-trace-otlp-http` sends), keeps their spans and the content type of each export,
 * and answers with an empty `ExportTraceServiceResponse` in the request's encoding.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ExportedSpan[] = [];
  const contentTypes: string[] = [];
  const server = createServer((request, response) => {
    void bodyOf(request).then((body) => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      const contentType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      let exported: OtlpExport;
      try {
        if (contentType === 'application/x-protobuf') exported = decodeProtobufExport(body);
        else if (contentType === 'application/json') exported = JSON.parse(body.toString('utf8')) as OtlpExport;
        else {
          response.writeHead(415).end();
          return;
        }
      } catch {
        response.writeHead(400).end();
        return;
      }
      contentTypes.push(contentType);
      for (const resourceSpans of exported.resourceSpans ?? []) {
        const serviceName = attributesOf(resourceSpans.resource?.attributes)['service.name'] as string | undefined;
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            received.push({
              traceId: span.traceId,
              spanId: span.spanId,
              ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
              name: span.name,
              kind: span.kind,
              attributes: attributesOf(span.attributes),
              links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
              serviceName,
            });
          }
        }
      }
      if (contentType === 'application/x-protobuf') {
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } else {
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    serviceNames: () => [...new Set(received.map((span) => span.serviceName).filter((name) => name !== undefined))],
    contentTypes: () => [...contentTypes],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
