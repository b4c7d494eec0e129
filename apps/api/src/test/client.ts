import { contract } from '@nestegg/contract';
import { type ApiFetcherArgs, initClient } from '@ts-rest/core';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/** The typed contract client over `app.inject` (no socket): what a frontend would call, status by status. */
export type ApiClient = ReturnType<typeof contractClient>;

function responseBody(response: LightMyRequestResponse): unknown {
  if (response.body === '') return undefined;
  const type = String(response.headers['content-type'] ?? '');
  if (/json/.test(type)) return response.json();
  return /^text\//.test(type) ? response.body : response.rawPayload;
}

function responseHeaders(response: LightMyRequestResponse): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : String(value));
  }
  return headers;
}

export function contractClient(app: FastifyInstance, options: { token?: string; remoteAddress?: string } = {}) {
  return initClient(contract, {
    baseUrl: '',
    baseHeaders: options.token ? { authorization: `Bearer ${options.token}` } : {},
    throwOnUnknownStatus: true,
    api: async ({ path, method, headers, body }: ApiFetcherArgs) => {
      const response = await app.inject({
        method: method as 'GET',
        url: path,
        headers,
        ...(body !== undefined && body !== null ? { payload: body as string } : {}),
        ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
      });
      return { status: response.statusCode, body: responseBody(response), headers: responseHeaders(response) };
    },
  });
}

type AnyResponse = { status: number; body: unknown };

/** The body of a response of the expected status, typed by the contract; fails the test with the body otherwise. */
export function bodyOf<R extends AnyResponse, S extends R['status']>(
  response: R,
  status: S,
): Extract<R, { status: S }>['body'] {
  if (response.status !== status) {
    throw new Error(`expected status ${status}, got ${response.status}: ${JSON.stringify(response.body)}`);
  }
  return response.body as Extract<R, { status: S }>['body'];
}

/** Asserts a problem answer: its status and `code`; returns the problem body. */
export function problemOf<R extends AnyResponse>(response: R, status: number, code: string) {
  const body = response.body as { code?: string } | undefined;
  if (response.status !== status || body?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${response.status}: ${JSON.stringify(response.body)}`);
  }
  return body as { status: number; code: string; detail?: string; errors?: { path: string; message: string }[] };
}
