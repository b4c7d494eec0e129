/** Sending a document request to the api and holding its answer against the declared response. */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { DocumentValidator, Operation } from './document.js';
import { type DocRequest, fromWire } from './requests.js';

const BOUNDARY = 'nestegg-document-suite';

const toText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function multipartPayload(fields: Record<string, unknown>): Buffer {
  const parts = Object.entries(fields).flatMap(([name, value]) => {
    const isFile = Buffer.isBuffer(value);
    const head =
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"` +
      (isFile ? `; filename="${name}.png"\r\nContent-Type: image/png` : '') +
      '\r\n\r\n';
    return [Buffer.from(head), isFile ? value : Buffer.from(toText(value)), Buffer.from('\r\n')];
  });
  return Buffer.concat([...parts, Buffer.from(`--${BOUNDARY}--\r\n`)]);
}

/** The URL of a request: path parameters percent-encoded, query values in the form style (arrays repeated). */
export function urlOf(op: Operation, request: DocRequest): string {
  const path = op.path.replace(/\{(\w+)\}/g, (_whole, name: string) =>
    encodeURIComponent(String(request.params.path?.[name])),
  );
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(request.params.query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) query.append(name, String(item));
  }
  const search = query.toString();
  return search ? `${path}?${search}` : path;
}

export async function send(
  app: FastifyInstance,
  op: Operation,
  request: DocRequest,
  headers: Record<string, string>,
  remoteAddress: string,
): Promise<LightMyRequestResponse> {
  const sent: Record<string, string> = { ...headers };
  for (const [name, value] of Object.entries(request.params.header ?? {})) sent[name] = String(value);
  let payload: string | Buffer | undefined;
  if (request.body !== undefined && request.mediaType === 'multipart/form-data') {
    payload = multipartPayload(request.body as Record<string, unknown>);
    sent['content-type'] = `multipart/form-data; boundary=${BOUNDARY}`;
  } else if (request.body !== undefined) {
    payload = JSON.stringify(request.body);
    sent['content-type'] = 'application/json';
  }
  return app.inject({
    method: op.method as 'GET',
    url: urlOf(op, request),
    headers: sent,
    remoteAddress,
    ...(payload === undefined ? {} : { payload }),
  });
}

const mediaTypeOfAnswer = (response: LightMyRequestResponse) =>
  String(response.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();

const covers = (declared: string, actual: string) =>
  declared === actual || (declared.endsWith('/*') && actual.startsWith(declared.slice(0, -1)));

const isJson = (mediaType: string) => mediaType === 'application/json' || mediaType.endsWith('+json');

/** Where the answer departs from the response the document declares for its status (none when it matches). */
export function answerProblems(
  op: Operation,
  response: LightMyRequestResponse,
  validator: DocumentValidator,
  method = op.method,
): string[] {
  const status = String(response.statusCode);
  const declared = op.responses[status];
  if (!declared) return [`undeclared status ${status}: ${response.body.slice(0, 200)}`];
  const problems: string[] = [];
  for (const [name, header] of Object.entries(declared.headers ?? {})) {
    const value = response.headers[name.toLowerCase()];
    if (value === undefined) {
      if (header.required) problems.push(`${status} without its required ${name} header`);
      continue;
    }
    const schema = validator.resolve(header.schema);
    const error = validator.errorOf(
      `${op.pointer}/responses/${status}/headers/${name}/schema`,
      fromWire(String(value), schema),
    );
    if (error) problems.push(`${status} header ${name}=${value}: ${error}`);
  }
  const content = declared.content ?? {};
  const declaredTypes = Object.keys(content);
  if (method === 'HEAD') return problems;
  if (declaredTypes.length === 0) {
    if (response.rawPayload.length > 0) problems.push(`${status} has a body where none is declared`);
    return problems;
  }
  const actual = mediaTypeOfAnswer(response);
  const mediaType = declaredTypes.find((candidate) => covers(candidate, actual));
  if (!mediaType) return [...problems, `${status} content type "${actual}", declared ${declaredTypes.join(', ')}`];
  if (!isJson(actual)) return problems;
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    return [...problems, `${status} ${actual} body is not JSON`];
  }
  const pointer = `${op.pointer}/responses/${status}/content/${mediaType.replace(/\//g, '~1')}/schema`;
  const error = validator.errorOf(pointer, body);
  if (error) problems.push(`${status} body: ${error}: ${response.body.slice(0, 300)}`);
  return problems;
}

/** The problem `code` of an error answer, if it has one. */
export function problemCodeOf(response: LightMyRequestResponse): string {
  try {
    return String((JSON.parse(response.body) as { code?: unknown }).code ?? '');
  } catch {
    return '';
  }
}
