import { afterEach } from 'vitest';
import { undeclaredProblems } from '../plugins/problem-code-check.js';

/** A test whose requests got a problem code their route does not declare fails (decision C32). */
afterEach(() => {
  const found = undeclaredProblems().splice(0);
  if (found.length > 0) throw new Error(`problem codes the contract does not declare:\n${found.join('\n')}`);
});
