/**
 * Issue 20, item 12: the served OpenAPI document, read as an outside generator reads it. Requests are drawn
 * from the document's own schemas (fast-check arbitraries built by a walker, checked by Ajv), never from the
 * zod contract. For every operation, as a member, a PREMIUM member and an admin: values the document allows
 * are accepted or refused only by a rule the document cannot state (`MESSAGE_LIMITS` and `LIMIT_CODES`, decision
 * C40) or by stored state (401/403/404/409/422/429, or 503 for a service this test server runs without);
 * values it forbids, one field at a time, are refused with 400; every answer matches the response declared
 * for its status (schema, content type, required headers); methods the document does not list answer 405.
 * `OPENAPI_SUITE_SEED` changes the seed; `OPENAPI_SUITE_REPORT=<file>` appends each role's summary and failures.
 */
import { appendFileSync } from 'node:fs';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { describe, expect } from 'vitest';
import { createMemberWithSession } from './test/app.js';
import { DocumentValidator, type OpenApiDocument, type Operation, operationsOf } from './test/document/document.js';
import { answerProblems, problemCodeOf, send, urlOf } from './test/document/exchange.js';
import {
  allowedRequests,
  type DocRequest,
  forbiddenRequests,
  type IdPool,
  poolKeyOf,
} from './test/document/requests.js';
import { type Caller, test } from './test/fixtures.js';

const SEED = Number(process.env.OPENAPI_SUITE_SEED ?? 20261126);
const ALLOWED_PER_OPERATION = 3;
/** The roles after the first an operation is for repeat fewer allowed requests: the first showed the values. */
const ALLOWED_PER_OPERATION_AGAIN = 2;
/**
 * Forbidden requests per operation, drawn evenly over its fields: the full share for the least privileged role
 * the operation is for (validation does not depend on the caller), a few for the others to show it does not.
 */
const FORBIDDEN_PER_OPERATION = { first: 16, others: 2 };

type Role = 'member' | 'premium' | 'admin';

/**
 * Rules OpenAPI 3.0 cannot state, by which a value the document allows is refused with 400 (decision C40):
 * a `VALIDATION_FAILED` whose every message is one of these, on these operations.
 */
const MESSAGE_LIMITS: Array<{ operations: RegExp; message: RegExp; rule: string }> = [
  {
    operations: /^(POST|PUT) \/api\/account\/entries(\/\{id\})?$/,
    message:
      /^(only with currency|required with currency|only for expenses|currency, originalAmount and exchangeRate are set together or not at all|instalments \(2\.\.24\) are for EXPENSE entries only|only for an expense on a \w+ wallet)$/,
    rule: 'between fields: originalAmount and exchangeRate come with currency, and only with it; installments only on expenses',
  },
  {
    operations: /^(POST|PUT) \/api\/account\/wallets(\/\{id\})?$/,
    message:
      /^(loan terms are for LOAN and MINUS wallets only|required together with the other .*|the credit limit is required with the other terms of a credit line|a credit line has no repayment method: null or BULLET)$/,
    rule: 'between fields: loan terms only on LOAN and MINUS wallets, and which of them come together',
  },
  {
    operations: /^(POST|PUT) \/api\/account\/(recurrings|budgets\/onetime)(\/\{id\})?$|^POST \/api\/account\/restore$/,
    message: /^before startDate$/,
    rule: 'between fields: endDate not before startDate',
  },
  {
    operations: /^POST \/api\/billing\/appstore\/verify$/,
    message: /^send either signedTransaction or transactionId, not both$/,
    rule: 'between fields: exactly one of signedTransaction and transactionId',
  },
  {
    operations: /^GET /,
    message: /^from is after to$/,
    rule: 'between fields: from not after to',
  },
  {
    operations: /^POST \/api\/account\/budgets\/copy$/,
    message: /^source and target month must differ$/,
    rule: 'between fields: the source and target months differ',
  },
  {
    operations: /^GET \/api\/fx\/rate$/,
    message: /^a future day has no rate$/,
    rule: "stored state: today's date (a rate of a future day)",
  },
  {
    operations: /^PUT \/api\/account\/holdings\/\{id\}$/,
    message: /^trades of this holding have fractional prices, which local currency has not$/,
    rule: "stored state: the holding's trades decide whether its currency may be local",
  },
  {
    operations: /^(POST|PUT) \/api\/account\/trades(\/\{id\})?$/,
    message: /^a local-currency holding takes whole units$/,
    rule: "stored state: the holding's currency decides whether a price may have decimals",
  },
  {
    operations: /^(POST|PUT) \/api\/account\/trades(\/\{id\})?$/,
    message: /^A value in the request cannot be stored\.$/,
    rule: "stored state: a holding's quantity, the sum of its trades, stays within numeric(18,6)",
  },
  {
    operations: /^POST \/api\/board\/spam-keywords$/,
    message: /normalised/,
    rule: 'content: a keyword keeps two letters or digits once Unicode-normalised',
  },
];

/** Domain codes of 400 that a value the document allows can meet: each a rule on stored state or on content. */
const LIMIT_CODES: Record<string, string> = {
  // Between fields.
  OFFSET_TOO_DEEP: 'between fields: page × size past 10,000 rows (take the cursor)',
  INVALID_BACKUP: 'between fields: a backup refers to its own accounts, categories and tags by name',
  EMPTY_BACKUP: 'between fields: a backup holds at least one record in one of its lists',
  // On stored state.
  UNKNOWN_CATEGORY: "stored state: the category named must be one of the member's",
  UNKNOWN_TAG: "stored state: the tags named must be the member's",
  CATEGORY_TOO_DEEP: 'stored state: the parent category is itself a sub-category',
  CATEGORY_TYPE_MISMATCH: "stored state: the parent category's type",
  INVALID_PARENT: 'stored state: the parent category must be one of the member’s',
  WALLET_LIMIT: "stored state: a FREE member's number of wallets",
  RECURRING_LIMIT: "stored state: a FREE member's number of recurring transactions",
  INVALID_PASSWORD: 'stored state: the password on record',
  INVALID_CURRENT_PASSWORD: 'stored state: the password on record',
  PASSWORD_UNCHANGED: 'stored state: the new password is the one on record',
  INVALID_PURCHASE: "stored state: the store's record of the purchase",
  PRODUCT_MISMATCH: "stored state: the store's record of the purchase",
  UNKNOWN_BOARD_TAG: 'stored state: the tag must be one of the board’s tag groups',
  INVALID_REORDER: "stored state: the ids must be exactly the member's rows",
  OWN_CONTENT: "stored state: one's own post or comment cannot be voted on or reported",
  SOCIAL_ACCOUNT: 'stored state: an account without a password',
  AMOUNT_OUT_OF_RANGE: "stored state: the member's amounts together stay within 2^53 − 1",
  UNKNOWN_PRODUCT: "stored state: the store's product catalogue",
  // On content the document carries as an opaque string.
  CURSOR_INVALID: 'content: a cursor is a token the server minted',
  INVALID_IMAGE: 'content: the data URL must decode to an image',
  STATEMENT_UNSUPPORTED: 'content: the uploaded file must be a statement (CSV, XLSX, OFX or an HTML table)',
  STATEMENT_UNREADABLE: 'content: the statement must decode and have a header row',
  IMAGE_TOO_LARGE: "content: the decoded image's size",
  WEAK_PASSWORD: "content: a password's estimated strength (against the member's own name and e-mail too)",
};

/** Refusals of allowed values by what the server holds (ownership, plan, role, uniqueness, limits, credentials)
 * or by a service this test server runs without (503). */
const STORED_STATE_STATUSES = new Set([401, 403, 404, 409, 422, 429, 503]);

/** A 401 on these means the suite lost its session; on the others (login, provider sign-in) it rejects credentials. */
const needsSession = (op: Operation) => op.auth === 'login' || op.auth === 'premium' || op.auth === 'admin';

const firstRoleOf = (op: Operation): Role =>
  op.auth === 'admin' ? 'admin' : op.auth === 'premium' ? 'premium' : 'member';

const mayCall = (op: Operation, role: Role) =>
  op.auth === 'admin' ? role === 'admin' : op.auth === 'premium' ? role !== 'member' : true;

class Findings {
  readonly failures: string[] = [];
  readonly refusals = new Map<string, number>();
  sent = 0;
  accepted = 0;
  forbiddenRefused = 0;

  fail(role: Role, op: Operation, what: string) {
    this.failures.push(`[${role}] ${op.method} ${op.path}: ${what}`);
  }

  refused(kind: string) {
    this.refusals.set(kind, (this.refusals.get(kind) ?? 0) + 1);
  }
}

/** One role's run: its caller, the ids it owns, where its requests come from. */
class RoleRun {
  readonly pool: IdPool = new Map();
  private requestNumber = 0;

  constructor(
    readonly app: FastifyInstance,
    readonly role: Role,
    public caller: Caller,
    readonly validator: DocumentValidator,
    readonly operations: Operation[],
    readonly findings: Findings,
    readonly roleIndex: number,
  ) {}

  private nextAddress() {
    this.requestNumber += 1;
    return `10.${120 + this.roleIndex}.${Math.floor(this.requestNumber / 250) % 250}.${this.requestNumber % 250}`;
  }

  async send(op: Operation, request: DocRequest): Promise<LightMyRequestResponse> {
    this.findings.sent += 1;
    const response = await send(this.app, op, request, this.caller.headers, this.nextAddress());
    for (const problem of answerProblems(op, response, this.validator)) this.findings.fail(this.role, op, problem);
    return response;
  }

  private async sendAsNewcomer(op: Operation, request: DocRequest): Promise<LightMyRequestResponse> {
    const kind =
      this.role === 'admin'
        ? { role: 'ADMIN' as const }
        : { plan: this.role === 'premium' ? ('PREMIUM' as const) : ('FREE' as const) };
    const newcomer = await createMemberWithSession(this.app, kind);
    this.findings.sent += 1;
    const response = await send(this.app, op, request, newcomer.headers, this.nextAddress());
    for (const problem of answerProblems(op, response, this.validator)) this.findings.fail(this.role, op, problem);
    return response;
  }

  private remember(template: string, id: number) {
    const ids = this.pool.get(template) ?? [];
    if (!ids.includes(id)) this.pool.set(template, [...ids, id]);
  }

  /** Ids from a 201's Location and from whole-collection reads, under the document's path template for them. */
  harvest(op: Operation, response: LightMyRequestResponse) {
    const location = response.headers.location;
    if (response.statusCode === 201 && typeof location === 'string') {
      const path = location.split('?')[0]!;
      for (const template of Object.keys(this.documentPaths())) {
        const pattern = new RegExp(`^${template.replace(/\{id\}/g, '(\\d+)').replace(/\{\w+\}/g, '[^/]+')}$`);
        const match = pattern.exec(path);
        if (match?.[1] && template.endsWith('{id}')) this.remember(template, Number(match[1]));
      }
    }
    const member = `${op.path}/{id}`;
    const json = String(response.headers['content-type']).startsWith('application/json');
    if (op.method === 'GET' && response.statusCode === 200 && json && member in this.documentPaths()) {
      if (op.path === '/api/admin/members') return;
      const body = response.json() as unknown;
      const items = Array.isArray(body) ? body : ((body as { items?: unknown[] }).items ?? []);
      for (const item of items.slice(0, 3)) {
        const id = (item as { id?: unknown }).id;
        if (typeof id === 'number') this.remember(member, id);
      }
    }
  }

  private documentPaths() {
    return Object.fromEntries(this.operations.map((op) => [op.path, true]));
  }

  /** A session ended by the last request (logout, revoking sessions, a password change) is opened again. */
  async keepSession(op: Operation) {
    if (op.method === 'GET' || !op.path.startsWith('/api/auth/')) return;
    const probe = await this.app.inject({ method: 'GET', url: '/api/auth/profile', headers: this.caller.headers });
    if (probe.statusCode === 200) return;
    const opened = await this.app.services.sessions.open(this.caller.id, { rememberMe: false });
    if (!opened) return;
    this.caller = { ...this.caller, token: opened.token, headers: { authorization: `Bearer ${opened.token}` } };
  }

  async exercise(op: Operation, seed: number, withForbidden: boolean) {
    // A caller the operation is not for learns nothing more from a second request than from the first (403).
    const count = !mayCall(op, this.role)
      ? 1
      : firstRoleOf(op) === this.role
        ? ALLOWED_PER_OPERATION
        : ALLOWED_PER_OPERATION_AGAIN;
    const { requests, invalid } = allowedRequests(op, this.validator, this.pool, seed, count);
    for (const gap of invalid)
      this.findings.fail(this.role, op, `the generator made a value the document forbids: ${gap}`);
    for (const request of requests) {
      const response = await this.send(op, request);
      this.judgeAllowed(op, request, response);
      this.harvest(op, response);
      await this.keepSession(op);
    }
    if (!withForbidden || !mayCall(op, this.role) || requests.length === 0) return;
    const share = firstRoleOf(op) === this.role ? FORBIDDEN_PER_OPERATION.first : FORBIDDEN_PER_OPERATION.others;
    for (const forbidden of spread(forbiddenRequests(op, requests[0]!, this.validator), share)) {
      let response = await this.send(op, forbidden.request);
      // A per-member limit counts every attempt: a fresh caller of the same kind asks again.
      if (response.statusCode === 429) response = await this.sendAsNewcomer(op, forbidden.request);
      if (response.statusCode === 400) this.findings.forbiddenRefused += 1;
      else if (refusedBeforeReading(op, forbidden.name, response))
        this.findings.refused(`forbidden: ${response.statusCode} ${problemCodeOf(response)}`);
      else {
        this.findings.fail(
          this.role,
          op,
          `forbidden ${forbidden.name} answered ${response.statusCode} (${urlOf(op, forbidden.request)}): ${response.body.slice(0, 200)}`,
        );
      }
      await this.keepSession(op);
    }
  }

  private judgeAllowed(op: Operation, request: DocRequest, response: LightMyRequestResponse) {
    const status = response.statusCode;
    if (status < 400) {
      this.findings.accepted += 1;
      return;
    }
    const code = problemCodeOf(response);
    const limit = status === 400 ? limitOf(op, code, response) : undefined;
    if (limit) this.findings.refused(`400 ${code} (${limit})`);
    else if (STORED_STATE_STATUSES.has(status) && !(code === 'UNAUTHENTICATED' && needsSession(op))) {
      this.findings.refused(`${status} ${code}`);
    } else {
      this.findings.fail(
        this.role,
        op,
        `allowed value refused with ${status} ${code}: ${response.body.slice(0, 300)} for ${JSON.stringify({ url: urlOf(op, request), body: request.body }).slice(0, 400)}`,
      );
    }
  }
}

/** The rule OpenAPI 3.0 cannot state that refused an allowed value with 400, if it is a known one. */
function limitOf(op: Operation, code: string, response: LightMyRequestResponse): string | undefined {
  if (code !== 'VALIDATION_FAILED') return LIMIT_CODES[code];
  const operation = `${op.method} ${op.path}`;
  const problem = response.json() as { detail?: string; errors?: Array<{ message: string }> };
  const messages = problem.errors?.map((error) => error.message) ?? (problem.detail ? [problem.detail] : []);
  const rules = messages.map(
    (message) => MESSAGE_LIMITS.find((limit) => limit.operations.test(operation) && limit.message.test(message))?.rule,
  );
  return messages.length > 0 && rules.every(Boolean) ? [...new Set(rules)].join('; ') : undefined;
}

/** Services this test server runs without (store, quotes, receipts, provider sign-in): they answer first. */
const UNCONFIGURED = new Set(['PROVIDER_NOT_CONFIGURED', 'STORE_NOT_CONFIGURED']);

/**
 * A forbidden request refused before its values are read, for a reason the document declares: a service the
 * route needs is not configured here (503), or a file upload sent without a body has no multipart type (415).
 */
function refusedBeforeReading(op: Operation, name: string, response: LightMyRequestResponse): boolean {
  const code = problemCodeOf(response);
  if (response.statusCode === 503 && UNCONFIGURED.has(code)) return true;
  const multipart = Object.keys(op.requestBody?.content ?? {}).includes('multipart/form-data');
  return response.statusCode === 415 && multipart && name === 'body: missing';
}

/** At most `limit` items, taken evenly across the list (so every field keeps some of its cases). */
function spread<T>(items: T[], limit: number): T[] {
  if (items.length <= limit) return items;
  return Array.from({ length: limit }, (_, i) => items[Math.floor((i * items.length) / limit)]!);
}

/**
 * Reads first (their lists give ids), then what creates rows (twice, so a row that needs another finds it),
 * then the rest, deletions after, and the session's own ends (logout, revoking, withdrawal) last.
 */
function orderOf(op: Operation): number {
  if (op.method === 'DELETE' && op.path === '/api/auth/me') return 6;
  if (op.method !== 'GET' && op.path.startsWith('/api/auth/')) return 5;
  if (op.method === 'DELETE') return 4;
  if (op.method === 'GET' && !op.path.includes('{')) return 0;
  if (op.method === 'POST' && op.responses['201']) return 1;
  return 3;
}

async function exerciseRole(app: FastifyInstance, role: Role, caller: Caller, roleIndex: number) {
  const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as OpenApiDocument;
  const validator = new DocumentValidator(document);
  const operations = operationsOf(document);
  const findings = new Findings();
  const run = new RoleRun(app, role, caller, validator, operations, findings, roleIndex);
  if (role === 'admin') {
    const target = await createMemberWithSession(app);
    run.pool.set(poolKeyOf('/api/admin/members/{id}', 'id'), [target.id]);
  }
  const ordered = [...operations.entries()].sort(([a, x], [b, y]) => orderOf(x) - orderOf(y) || a - b);
  for (const [index, op] of ordered) {
    if (orderOf(op) === 1 && mayCall(op, role)) await run.exercise(op, SEED + roleIndex * 1000 + index + 500, false);
  }
  for (const [index, op] of ordered) await run.exercise(op, SEED + roleIndex * 1000 + index, true);
  return findings;
}

function summary(role: Role, findings: Findings) {
  const refusals = [...findings.refusals.entries()].map(([kind, count]) => `${kind} ×${count}`).join(', ');
  return (
    `openapi document (${role}, seed ${SEED}): ${findings.sent} requests, ${findings.accepted} allowed accepted, ` +
    `${findings.forbiddenRefused} forbidden refused with 400; allowed refused by stored state or a known limit: ${refusals}`
  );
}

const PROBED_METHODS = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE'];

/** Every method the document does not list on a path answers 405 with `Allow`, as the path's operations declare. */
async function unlistedMethodProblems(app: FastifyInstance): Promise<{ sent: number; problems: string[] }> {
  const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as OpenApiDocument;
  const validator = new DocumentValidator(document);
  const byPath = new Map<string, Operation[]>();
  for (const op of operationsOf(document)) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
  const problems: string[] = [];
  let sent = 0;
  const templates = [...byPath.keys()].map((path) => ({
    path,
    pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`),
    rank: path
      .split('/')
      .map((segment) => (segment.startsWith('{') ? '1' : '0'))
      .join(''),
  }));
  for (const [path, operations] of byPath) {
    const url = path.replace(/\{\w+\}/g, '1');
    // `/entries/parse` is a literal path, never `/entries/{id}`: the most specific template owns a URL (C48).
    const owner = templates.filter((t) => t.pattern.test(url)).sort((a, b) => a.rank.localeCompare(b.rank))[0]!;
    const listed = byPath.get(owner.path)!.map((op) => op.method);
    const served = listed.includes('GET') ? [...listed, 'HEAD'] : listed;
    for (const method of PROBED_METHODS.filter((candidate) => !served.includes(candidate))) {
      sent += 1;
      const response = await app.inject({ method: method as 'GET', url });
      const where = `${method} ${path}`;
      if (response.statusCode !== 405) {
        problems.push(`${where}: ${response.statusCode} instead of 405`);
        continue;
      }
      const allowed = String(response.headers.allow ?? '').split(/,\s*/);
      const own = operations.map((op) => op.method);
      const missing = (own.includes('GET') ? [...own, 'HEAD'] : own).filter((m) => !allowed.includes(m));
      if (missing.length > 0)
        problems.push(`${where}: Allow "${response.headers.allow}" leaves out ${missing.join(', ')}`);
      for (const problem of answerProblems(operations[0]!, response, validator, method)) {
        problems.push(`${where}: ${problem}`);
      }
    }
  }
  return { sent, problems };
}

describe('the served OpenAPI document, as an outside generator reads it', () => {
  test('methods it does not list on a path answer 405 with Allow, as every operation declares', async ({ app }) => {
    const { sent, problems } = await unlistedMethodProblems(app);
    console.info(`openapi document: ${sent} unlisted methods probed`);
    expect(sent).toBeGreaterThan(300);
    expect(problems).toEqual([]);
  });

  const roles: Array<[Role, (fixtures: { free: Caller; premium: Caller; admin: Caller }) => Caller]> = [
    ['member', ({ free }) => free],
    ['premium', ({ premium }) => premium],
    ['admin', ({ admin }) => admin],
  ];
  for (const [roleIndex, [role, callerOf]] of roles.entries()) {
    test(`as ${role === 'member' ? 'a member' : role === 'premium' ? 'a PREMIUM member' : 'an admin'}`, async ({
      app,
      free,
      premium,
      admin,
    }) => {
      const findings = await exerciseRole(app, role, callerOf({ free, premium, admin }), roleIndex);
      console.info(summary(role, findings));
      if (process.env.OPENAPI_SUITE_REPORT) {
        appendFileSync(
          process.env.OPENAPI_SUITE_REPORT,
          `${[summary(role, findings), ...findings.failures].join('\n')}\n`,
        );
      }
      expect(findings.failures).toEqual([]);
    }, 300_000);
  }
});
