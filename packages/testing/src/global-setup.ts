import { migrateDatabase, migrationFingerprint } from '@nestegg/db/migrate';
import type { TestProject } from 'vitest/node';
import { ensureTemplateDatabase } from './postgres.js';
import './provided-context.js';

/** Vitest globalSetup: migrates the template database once per run; test files copy it. */
export default async function setup(project: TestProject): Promise<void> {
  const template = await ensureTemplateDatabase(migrationFingerprint(), (url) => migrateDatabase(url));
  project.provide('templateDatabase', template);
}
