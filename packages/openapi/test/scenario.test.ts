import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exampleScenario, labelOf, recordedExamples, resolve } from '../src/scenario/index.js';
import { doc, operations } from './document.js';

const documented = exampleScenario.filter((step) => !step.setup);
const bodyOf = (step: (typeof exampleScenario)[number]) => step.body as Record<string, unknown> | undefined;

/** The default categories a fresh installation has (migration 0023, decision A8). */
const seededCategories = (() => {
  const migration = new URL('../../db/migrations/0023_default_categories.sql', import.meta.url);
  return new Set([...readFileSync(migration, 'utf8').matchAll(/\('([^']+)', '(?:EXPENSE|INCOME)'/g)].map((m) => m[1]));
})();

/** The products `npm start` serves without BILLING_PRODUCTS (infra/local/start.mjs). */
const sampleProducts = (() => {
  const launcher = readFileSync(new URL('../../../infra/local/start.mjs', import.meta.url), 'utf8');
  const list = /SAMPLE_BILLING_PRODUCTS = '([^']+)'/.exec(launcher)?.[1] ?? '';
  return new Set(list.split(',').map((entry) => entry.split(':')[0]));
})();

describe('the example scenario (decision C44)', () => {
  it('documents every operation of the document with exactly one step, and names only real operations', () => {
    const ids = operations.map(({ op }) => op.operationId!);
    expect(documented.map((step) => step.operation).sort()).toEqual([...ids].sort());
    expect(exampleScenario.filter((step) => !ids.includes(step.operation))).toEqual([]);
    const labels = exampleScenario.map(labelOf);
    expect(new Set(labels).size).toBe(labels.length);
  });

  it('has a recording of each step, with the step’s status, and none of steps that are gone', () => {
    const labels = exampleScenario.map(labelOf);
    const wrong = exampleScenario.filter((step) => recordedExamples[labelOf(step)]?.status !== step.status);
    expect(wrong.map(labelOf)).toEqual([]);
    expect(Object.keys(recordedExamples).filter((label) => !labels.includes(label))).toEqual([]);
  });

  it('shows each operation’s step in the document: who sends it, the request, the parameters and the answer', () => {
    const mismatches = operations.flatMap(({ method, path, op }) => {
      const step = documented.find((candidate) => candidate.operation === op.operationId)!;
      const where = `${method} ${path}`;
      const shown = op as typeof op & { 'x-example-caller'?: string };
      const problems: string[] = [];
      if (shown['x-example-caller'] !== step.as) problems.push(`${where}: caller ${shown['x-example-caller']}`);
      if (!op.description?.includes('Example: sent by ')) problems.push(`${where}: no caller in the description`);
      const request = op.requestBody?.content['application/json'] as { example?: unknown } | undefined;
      if (
        step.body !== undefined &&
        JSON.stringify(request?.example) !== JSON.stringify(resolve(step.body, recordedExamples))
      ) {
        problems.push(`${where}: request example`);
      }
      const parameters = resolve({ ...step.params, ...step.query }, recordedExamples) as Record<string, unknown>;
      for (const [name, value] of Object.entries(parameters)) {
        const parameter = op.parameters?.find((p) => p.name === name) as { example?: unknown } | undefined;
        if (parameter?.example !== value) problems.push(`${where}: parameter ${name}`);
      }
      const answer = op.responses[String(step.status)]?.content?.['application/json'];
      const recorded = recordedExamples[labelOf(step)]?.body;
      if (answer && JSON.stringify(answer.example) !== JSON.stringify(recorded)) problems.push(`${where}: answer`);
      return problems;
    });
    expect(mismatches).toEqual([]);
  });

  it('runs member steps as FREE before the test purchase and PREMIUM steps after it', () => {
    const purchase = exampleScenario.findIndex((step) => step.operation === 'billingVerify');
    const misplaced = exampleScenario.flatMap((step, index) =>
      (step.as === 'member' && index > purchase) || (step.as === 'premium' && index < purchase) ? [labelOf(step)] : [],
    );
    expect(misplaced).toEqual([]);
    const premiumOnly = operations.filter(({ op }) => (op as { 'x-auth'?: string })['x-auth'] === 'premium');
    const freeCallers = premiumOnly.filter(({ op }) =>
      documented.some(
        (step) => step.operation === op.operationId && ['member', 'neighbor', 'social'].includes(step.as),
      ),
    );
    expect(freeCallers.map(({ op }) => op.operationId)).toEqual([]);
  });

  it('uses only products, categories and board tags a fresh `npm start` has, or that an earlier step made', () => {
    expect(sampleProducts).toContain('premium_monthly');
    const made = new Set<string>();
    const unknown: string[] = [];
    for (const step of exampleScenario) {
      const body = bodyOf(step);
      if (step.operation === 'billingVerify' && !sampleProducts.has(String(body?.productId))) {
        unknown.push(`${labelOf(step)}: product ${body?.productId}`);
      }
      const category = body?.category;
      if (typeof category === 'string' && step.operation.startsWith('ledger')) {
        if (!seededCategories.has(category) && !made.has(category)) unknown.push(`${labelOf(step)}: ${category}`);
      }
      if (step.operation === 'ledgerCategoriesCreate' && typeof body?.name === 'string') made.add(body.name);
      if (/^board(Create|Update)Post$/.test(step.operation) && body?.tags) unknown.push(`${labelOf(step)}: board tags`);
    }
    expect(unknown).toEqual([]);
  });

  it('describes billing test mode where a frontend reads about purchases: products, verify and restore', () => {
    const billing = ['/api/billing/products', '/api/billing/store/verify', '/api/billing/restore'].map((path) => {
      const item = doc.paths[path] as Record<string, { description?: string }>;
      return Object.values(item)[0]?.description ?? '';
    });
    for (const description of billing)
      expect(description).toMatch(/`test-`.*BILLING_TEST_MODE|BILLING_TEST_MODE.*`test-`/s);
    expect(billing[0]).toContain('`premium_monthly`');
  });

  it('puts the scenario’s recorded answer in the served document, not an invented one', () => {
    const created = doc.paths['/api/account/wallets']?.post?.responses['201']?.content?.['application/json']?.example;
    expect(created).toMatchObject({ name: '국민은행 입출금', type: 'BANK', openingBalance: 1500000 });
    const entry = doc.paths['/api/account/entries']?.post?.responses['201']?.content?.['application/json']?.example;
    expect(entry).toMatchObject({ category: '카페', currency: null });
  });
});
