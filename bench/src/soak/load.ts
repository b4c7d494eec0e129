/**
 * The soak's clients and its load balancer. Members are simulated clients, each with its own address (sent in
 * X-Forwarded-For, the apis trust the balancer). Requests go round-robin over the api replicas; one that finds
 * no connection (a killed replica) goes to the next, as a load balancer retries a connect failure. An entry write
 * keeps its Idempotency-Key and is retried on 5xx, 409 IDEMPOTENCY_KEY_IN_USE and no answer, until acknowledged
 * or the load stops. A connection reset or a timeout is no answer (status 0): it is not sent again elsewhere.
 */
import { randomUUID } from 'node:crypto';
import { type Slot, sleep } from './processes.js';

export const KINDS = [
  'profile',
  'entries.list',
  'board.list',
  'entry.create',
  'board.post',
  'board.comment',
  'login',
] as const;
export type Kind = (typeof KINDS)[number];

/** Requests per second of each kind, about 25 in all: what two api replicas hold on a shared 2-core machine. */
export const RATES: Record<Kind, number> = {
  profile: 5,
  'entries.list': 4,
  'board.list': 5,
  'entry.create': 7,
  'board.post': 0.5,
  'board.comment': 2,
  login: 0.5,
};

export interface Answer {
  kind: Kind;
  /** The replica that answered, or the last one tried when none did. */
  replica: string;
  /** 0: no answer from any replica (connection refused or reset everywhere, or 15 s without one). */
  status: number;
  /** The problem's code; with status 0, what the connection did (`ECONNRESET`, `timeout`, …). */
  code?: string;
  /** Date.now() when sent and answered. */
  began: number;
  answered: number;
  ms: number;
  /** A retry of an entry write with the same key. */
  retry: boolean;
}

export interface Member {
  index: number;
  email: string;
  password: string;
  address: string;
  token: string;
}

export const PASSWORD = 'soak run 2026 long enough';
const REQUEST_TIMEOUT_MS = 15_000;

export class Balancer {
  private turn = 0;
  readonly answers: Answer[] = [];
  inFlight = 0;
  constructor(private readonly apis: Slot[]) {}

  /** One request, to the next replica in turn, else (no connection) the others. */
  async send(
    kind: Kind,
    method: string,
    path: string,
    init: { member?: Member; address?: string; token?: string; key?: string; body?: unknown; retry?: boolean } = {},
  ): Promise<{ answer: Answer; json: unknown }> {
    const first = this.turn++;
    const began = Date.now();
    const start = performance.now();
    let replica = '';
    let failure: string | undefined;
    this.inFlight += 1;
    try {
      for (let attempt = 0; attempt < this.apis.length; attempt += 1) {
        const api = this.apis[(first + attempt) % this.apis.length]!;
        replica = api.name;
        try {
          const token = init.token ?? init.member?.token;
          const response = await fetch(`${api.url}${path}`, {
            method,
            headers: {
              'x-forwarded-for': init.address ?? init.member?.address ?? '10.9.9.9',
              ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
              ...(token ? { authorization: `Bearer ${token}` } : {}),
              ...(init.key ? { 'idempotency-key': init.key } : {}),
            },
            ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
            signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          });
          const text = await response.text();
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          const answer: Answer = {
            kind,
            replica,
            status: response.status,
            began,
            answered: Date.now(),
            ms: performance.now() - start,
            retry: init.retry ?? false,
          };
          if (response.status >= 400) answer.code = (json as { code?: string } | undefined)?.code;
          this.answers.push(answer);
          return { answer, json };
        } catch (error) {
          // Only a refused connection (nothing was sent) goes to the next replica, as a load balancer retries a
          // connect failure; a reset or a timeout may have left a write running, so it is no answer.
          const code = ((error as Error).cause as { code?: string } | undefined)?.code;
          failure = (error as Error).name === 'TimeoutError' ? 'timeout' : (code ?? (error as Error).message);
          if (code !== 'ECONNREFUSED') break;
        }
      }
      const answer: Answer = {
        kind,
        replica,
        status: 0,
        code: failure,
        began,
        answered: Date.now(),
        ms: performance.now() - start,
        retry: init.retry ?? false,
      };
      this.answers.push(answer);
      return { answer, json: undefined };
    } finally {
      this.inFlight -= 1;
    }
  }
}

/** What the entry writers did with their keys. */
export interface WriteLedger {
  attempted: Set<string>;
  acknowledged: Set<string>;
  /** 409 IDEMPOTENCY_OUTCOME_UNKNOWN: final for the key; the entry may exist, at most once. */
  outcomeUnknown: Set<string>;
  /** A 4xx other than the key's 409s: the write was refused. */
  refused: Set<string>;
  /** Still unacknowledged when the load stopped. */
  pending: Set<string>;
  /** Board posts and comments answered 201 (by the key in their title or body). */
  boardAcknowledged: Set<string>;
  boardAttempted: Set<string>;
}

export function newLedger(): WriteLedger {
  return {
    attempted: new Set(),
    acknowledged: new Set(),
    outcomeUnknown: new Set(),
    refused: new Set(),
    pending: new Set(),
    boardAcknowledged: new Set(),
    boardAttempted: new Set(),
  };
}

export const ENTRY_MEMO_PREFIX = 'soak ';

/** One entry with one key, retried until acknowledged (backing off 0.25 s → 4 s) or until `stopped()`. */
export async function writeEntry(
  balancer: Balancer,
  member: Member,
  ledger: WriteLedger,
  stopped: () => boolean,
): Promise<void> {
  const key = randomUUID();
  ledger.attempted.add(key);
  ledger.pending.add(key);
  const body = { type: 'EXPENSE', amount: 1200, date: '2026-12-01', memo: `${ENTRY_MEMO_PREFIX}${key}` };
  let wait = 250;
  let retry = false;
  while (!stopped()) {
    const { answer } = await balancer.send('entry.create', 'POST', '/api/account/entries', {
      member,
      key,
      body,
      retry,
    });
    retry = true;
    if (answer.status === 201) {
      ledger.pending.delete(key);
      ledger.acknowledged.add(key);
      return;
    }
    if (answer.code === 'IDEMPOTENCY_OUTCOME_UNKNOWN') {
      ledger.pending.delete(key);
      ledger.outcomeUnknown.add(key);
      return;
    }
    const again =
      answer.status === 0 || answer.status >= 500 || answer.code === 'IDEMPOTENCY_KEY_IN_USE' || answer.status === 429;
    if (!again) {
      ledger.pending.delete(key);
      ledger.refused.add(key);
      return;
    }
    await sleep(wait);
    wait = Math.min(wait * 2, 4_000);
  }
}

/** A new post on the community board, once (an Idempotency-Key, no retry): its title carries the key. */
export async function writePost(balancer: Balancer, member: Member, ledger: WriteLedger): Promise<number | undefined> {
  const key = randomUUID();
  ledger.boardAttempted.add(key);
  const { answer, json } = await balancer.send('board.post', 'POST', '/api/board/posts', {
    member,
    key,
    body: { category: 'community', title: `${ENTRY_MEMO_PREFIX}${key}`, body: 'What the soak writes on the board.' },
  });
  if (answer.status !== 201) return undefined;
  ledger.boardAcknowledged.add(key);
  return (json as { id: number }).id;
}

export async function writeComment(
  balancer: Balancer,
  member: Member,
  postId: number,
  ledger: WriteLedger,
): Promise<void> {
  const key = randomUUID();
  ledger.boardAttempted.add(key);
  const { answer } = await balancer.send('board.comment', 'POST', `/api/board/posts/${postId}/comments`, {
    member,
    body: { body: `${ENTRY_MEMO_PREFIX}${key}` },
  });
  if (answer.status === 201) ledger.boardAcknowledged.add(key);
}

/** Logs the member in again; the new session's token is used from then on (the old one stays valid). */
export async function login(balancer: Balancer, member: Member): Promise<void> {
  const { answer, json } = await balancer.send('login', 'POST', '/api/auth/login', {
    address: member.address,
    body: { email: member.email, password: PASSWORD },
  });
  if (answer.status === 200) member.token = (json as { token: string }).token;
}
