import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { RequestCounts } from './protocol.js';

/** The two clients whose traffic a request is counted by; postgres.js reads `options.debug` on every query. */
export interface CountedClients {
  sql: { options: { debug?: unknown } };
  redis: RedisLike | null;
}

interface RedisCommandLike {
  name: string;
  args: unknown[];
}

interface RedisLike {
  sendCommand(command: RedisCommandLike, ...rest: unknown[]): unknown;
}

/** The api's own clients, as its database and cache plugins decorate them. */
export function apiClients(app: FastifyInstance): CountedClients {
  const { sql, redis } = app as unknown as Partial<CountedClients>;
  if (!sql?.options) throw new Error('the api no longer decorates `sql` (postgres.js); update bench/src/instrument.ts');
  return { sql, redis: redis ?? null };
}

/** Scripts are told apart by their SHA-1, so a baseline whose Lua drifted from the api's shows up. */
function describeRedisCommand(command: RedisCommandLike): string {
  const name = command.name.toUpperCase();
  const [first] = command.args;
  if (name === 'EVALSHA') return `EVALSHA ${String(first).slice(0, 10)}`;
  if (name === 'EVAL') return `EVAL ${createHash('sha1').update(String(first)).digest('hex').slice(0, 10)}`;
  return name;
}

/** Each distinct item once, in the order first sent, with how often one request sent it. */
function tally(items: string[], requests: number): string[] {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts].map(([item, count]) => `${+(count / requests).toFixed(2)}× ${item}`);
}

/** Records what the client sends until the returned function is called. */
function recordStatements(sql: CountedClients['sql'], into: string[]): () => void {
  const previous = sql.options.debug;
  sql.options.debug = (_connection: number, query: string) => into.push(query);
  return () => {
    sql.options.debug = previous;
  };
}

function recordRedisCommands(redis: RedisLike | null, into: string[]): () => void {
  const sendCommand = redis?.sendCommand;
  if (!redis || !sendCommand) return () => {};
  const wasOwn = Object.hasOwn(redis, 'sendCommand');
  redis.sendCommand = function (this: RedisLike, command: RedisCommandLike, ...rest: unknown[]) {
    into.push(describeRedisCommand(command));
    return sendCommand.call(this, command, ...rest);
  };
  return () => {
    if (wasOwn) redis.sendCommand = sendCommand;
    else delete (redis as Partial<RedisLike>).sendCommand;
  };
}

/** A statement as the client sent it: its text and its parameters, serialised. */
export interface SentStatement {
  query: string;
  parameters: unknown[];
}

/** Every statement the client sends while `run` runs, with its parameters. */
export async function statementsSent(sql: CountedClients['sql'], run: () => Promise<void>): Promise<SentStatement[]> {
  const sent: SentStatement[] = [];
  const previous = sql.options.debug;
  sql.options.debug = (_connection: number, query: string, parameters: unknown[]) =>
    sent.push({ query, parameters: [...parameters] });
  try {
    await run();
  } finally {
    sql.options.debug = previous;
  }
  return sent;
}

/** Records every statement and Redis command the clients send while `run` makes `requests` requests. */
export async function countPerRequest(
  clients: CountedClients,
  requests: number,
  run: () => Promise<void>,
): Promise<RequestCounts> {
  const statements: string[] = [];
  const commands: string[] = [];
  const stops = [recordStatements(clients.sql, statements), recordRedisCommands(clients.redis, commands)];
  try {
    await run();
  } finally {
    for (const stop of stops) stop();
  }
  return {
    statementsPerRequest: statements.length / requests,
    redisCommandsPerRequest: commands.length / requests,
    statements: tally(statements, requests),
    redisCommands: tally(commands, requests),
  };
}
