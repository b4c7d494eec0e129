import { StoreUnavailableError } from '../errors.js';

export interface StoreResponse {
  status: number;
  /** Parsed JSON, `undefined` for an empty body. */
  body: unknown;
}

/** One request to the store with a time limit; network failures, timeouts and non-JSON answers are `StoreUnavailableError`. */
export async function storeRequest(url: string, init: RequestInit, timeoutMs: number): Promise<StoreResponse> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new StoreUnavailableError(`the store did not answer (${(error as Error).name})`);
  }
  const text = await response.text().catch(() => '');
  if (text === '') return { status: response.status, body: undefined };
  try {
    return { status: response.status, body: JSON.parse(text) as unknown };
  } catch {
    throw new StoreUnavailableError(`the store answered ${response.status} with a body that is not JSON`);
  }
}
