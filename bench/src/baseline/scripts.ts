import type { Cluster, Redis } from 'ioredis';

/** One Redis or a cluster, as the api's `REDIS_URL` or `REDIS_CLUSTER_NODES` picks (`--redis`). */
export type BaselineRedis = Redis | Cluster;

export interface ScriptSpec {
  numberOfKeys: number;
  lua: string;
}

type ScriptCommands<S> = { [K in keyof S]: (...args: (string | number)[]) => Promise<never> };

/**
 * The scripts as ioredis commands on this client (defined once), as the api defines its own: each call
 * is an EVALSHA, falling back to EVAL only when Redis lost the script.
 */
export function scripted<S extends Record<string, ScriptSpec>>(redis: BaselineRedis, scripts: S): ScriptCommands<S> {
  const commands = redis as unknown as Record<string, unknown>;
  for (const [name, spec] of Object.entries(scripts)) {
    if (typeof commands[name] !== 'function') redis.defineCommand(name, spec);
  }
  return commands as ScriptCommands<S>;
}
