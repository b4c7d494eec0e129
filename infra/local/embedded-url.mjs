#!/usr/bin/env node
// The address of the embedded PostgreSQL that `npm start` runs when no DATABASE_URL is given: the launcher
// connects the apps to it, and `npm run admin` defaults to it. Run directly, it prints the address.
import { fileURLToPath } from 'node:url';

export const EMBEDDED_DATABASE = 'nestegg';

export function embeddedPostgresPort(env = process.env) {
  return Number(env.EMBEDDED_POSTGRES_PORT || 54329);
}

export function embeddedDatabaseUrl(env = process.env) {
  return `postgres://postgres:postgres@127.0.0.1:${embeddedPostgresPort(env)}/${EMBEDDED_DATABASE}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(embeddedDatabaseUrl());
