/**
 * `DATABASE_URL` as libpq writes it, one host or several (`postgres://u@h1:5432,h2:5432/db?target_session_attrs=
 * read-write`), read once for every process that connects: the api, the worker and its job engine, the migrations and
 * the admin command (decision FO33). No dependencies: `@nestegg/config` validates the variable with it.
 */

/** The kinds of session the apps accept: they write, so a standby or a read-only server never will do. */
const WRITABLE_SESSION_ATTRS = ['read-write', 'primary'] as const;
export type WritableSessionAttrs = (typeof WRITABLE_SESSION_ATTRS)[number];

export interface DatabaseHost {
  host: string;
  port: number;
}

export interface DatabaseUrl {
  /** Every host of the URL, in its order, each with its port (5432 when it names none). */
  hosts: DatabaseHost[];
  /**
   * What a connection must find before it is used: the URL's `target_session_attrs`, or `read-write` when the URL
   * names several hosts and no attributes (the apps write; libpq's default, `any`, would take a standby); unset for
   * one host without it.
   */
  targetSessionAttrs: WritableSessionAttrs | undefined;
}

/** What is wrong with a `DATABASE_URL`; its message never repeats the URL (it may hold a password). */
export class DatabaseUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseUrlError';
  }
}

const DEFAULT_PORT = 5432;
const SCHEME = /^(postgres|postgresql):\/\//i;
/** `[v6]`, `[v6]:port`, `name`, `name:port`, `:port` (the default host), or nothing (the default host and port). */
const HOST = /^(?:\[([0-9A-Fa-f:.]+)\]|([^[\]:]*))(?::(\d*))?$/;

function hostOf(spec: string, position: string): DatabaseHost {
  const match = HOST.exec(spec);
  if (!match) throw new DatabaseUrlError(`${position} "${spec}" is not host, host:port or [IPv6]:port`);
  const [, v6, name, port] = match;
  let host = v6 ?? name ?? '';
  try {
    host = decodeURIComponent(host);
  } catch {
    throw new DatabaseUrlError(`${position} "${spec}" has a broken %-escape`);
  }
  if (port !== undefined && port !== '' && !(Number(port) >= 1 && Number(port) <= 65535)) {
    throw new DatabaseUrlError(`${position} has port ${port}; a port is 1–65535`);
  }
  return { host, port: port ? Number(port) : DEFAULT_PORT };
}

/**
 * Reads a `postgres://` or `postgresql://` URL naming one host or several. Throws `DatabaseUrlError` saying what is
 * wrong when the URL cannot be used: another scheme, a host that is no host, a port out of range, an `@` left in the
 * password, an empty host among several, or `target_session_attrs` other than `read-write` or `primary`.
 */
export function parseDatabaseUrl(url: string): DatabaseUrl {
  const { hosts, attrs } = readUrl(url);
  if (attrs !== null && !(WRITABLE_SESSION_ATTRS as readonly string[]).includes(attrs)) {
    throw new DatabaseUrlError(
      `target_session_attrs=${attrs}: the apps write, so it is read-write (the default with several hosts) or primary`,
    );
  }
  return {
    hosts,
    targetSessionAttrs: (attrs as WritableSessionAttrs | null) ?? (hosts.length > 1 ? 'read-write' : undefined),
  };
}

/** What a host of `DATABASE_READ_URL` may be (decision DB21): `any` (the default), or a standby, only or first. */
const READ_SESSION_ATTRS = ['any', 'standby', 'prefer-standby'] as const;
export type ReadSessionAttrs = (typeof READ_SESSION_ATTRS)[number];

export interface ReadDatabaseUrl {
  /** Every host of the URL, in its order: each gets a pool of its own, so that each replica's position is known. */
  hosts: DatabaseHost[];
  /**
   * `standby`: a host that is not in recovery (a promoted standby) serves no reads; `prefer-standby`: it serves them
   * only while no standby can; `any` (when the URL names none): it serves them as a standby does.
   */
  targetSessionAttrs: ReadSessionAttrs;
}

/**
 * Reads `DATABASE_READ_URL`: the same forms as `DATABASE_URL` (`parseDatabaseUrl`), with the attributes of a reader:
 * `target_session_attrs` `any` (the default), `standby` or `prefer-standby`; `read-write` and `primary` are refused
 * (the primary is `DATABASE_URL`).
 */
export function parseReadDatabaseUrl(url: string): ReadDatabaseUrl {
  const { hosts, attrs } = readUrl(url);
  if (attrs !== null && !(READ_SESSION_ATTRS as readonly string[]).includes(attrs)) {
    throw new DatabaseUrlError(
      `target_session_attrs=${attrs}: replicas serve reads, so it is any (the default), standby or prefer-standby`,
    );
  }
  return { hosts, targetSessionAttrs: (attrs as ReadSessionAttrs | null) ?? 'any' };
}

/** `parseReadDatabaseUrl`'s complaint about `url`, or undefined when it can be used. */
export function readDatabaseUrlProblem(url: string): string | undefined {
  try {
    parseReadDatabaseUrl(url);
    return undefined;
  } catch (error) {
    if (error instanceof DatabaseUrlError) return error.message;
    throw error;
  }
}

/** The URL's hosts and its `target_session_attrs` (null when it names none), or a `DatabaseUrlError`. */
function readUrl(url: string): { hosts: DatabaseHost[]; attrs: string | null } {
  if (!SCHEME.test(url)) throw new DatabaseUrlError('expected a postgres:// or postgresql:// URL');
  const rest = url.replace(SCHEME, '');
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  const tail = authorityEnd === -1 ? '' : rest.slice(authorityEnd);
  const at = authority.lastIndexOf('@');
  if (authority.indexOf('@') !== at) {
    throw new DatabaseUrlError('the user or password holds an "@": write it as %40');
  }
  const specs = authority.slice(at + 1).split(',');
  const hosts = specs.map((spec, index) =>
    hostOf(spec, specs.length === 1 ? 'the host' : `host ${index + 1} of ${specs.length}`),
  );
  if (hosts.length > 1 && hosts.some((host) => host.host === '')) {
    throw new DatabaseUrlError('an empty host among several: name every host');
  }
  // The URL as the driver reads it (it keeps the first host for everything but the host list): it must parse.
  let parsed: URL;
  try {
    parsed = new URL(`postgres://${authority.slice(0, at + 1)}${specs[0]}${tail}`);
  } catch {
    throw new DatabaseUrlError('not a URL (user, password and database name are %-escaped in one)');
  }
  return { hosts, attrs: parsed.searchParams.get('target_session_attrs') };
}

/** `parseDatabaseUrl`'s complaint about `url`, or undefined when it can be used. */
export function databaseUrlProblem(url: string): string | undefined {
  try {
    parseDatabaseUrl(url);
    return undefined;
  } catch (error) {
    if (error instanceof DatabaseUrlError) return error.message;
    throw error;
  }
}

/**
 * The postgres.js options that make it connect as libpq would to `url`: each host with its own port (postgres.js
 * splits `host:port` on `:`, which breaks `[IPv6]:port`, and gives a host without a port the first host's port), and
 * the target session attributes. Pass them beside the URL: they override what postgres.js reads from it.
 */
export function driverHostOptions(url: string): {
  host?: string[];
  port?: number[];
  target_session_attrs?: WritableSessionAttrs;
} {
  const { hosts, targetSessionAttrs } = parseDatabaseUrl(url);
  const attrs = targetSessionAttrs ? { target_session_attrs: targetSessionAttrs } : {};
  // One host is left to postgres.js as before (it reads PGHOST, a socket directory and the like).
  if (hosts.length === 1) return attrs;
  return { host: hosts.map((host) => host.host), port: hosts.map((host) => host.port), ...attrs };
}
