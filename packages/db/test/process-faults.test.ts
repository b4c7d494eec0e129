import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { isDatabaseConnectionFault } from '../src/process-faults';

const child = fileURLToPath(new URL('./fixtures/fault-child.ts', import.meta.url));

/** Runs the child with one fault; its exit code and the JSON lines it printed. */
function run(fault: string): Promise<{ code: number | null; lines: Record<string, unknown>[] }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', child, fault], { timeout: 20_000 }, (error, stdout) => {
      const lines = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, lines });
    });
  });
}

describe('the process fault policy (decision FD2)', () => {
  it.each([
    ['driver-throw', 'uncaughtException'],
    ['driver-rejection', 'unhandledRejection'],
  ])('serves on through a database driver fault: %s', async (fault, origin) => {
    const { code, lines } = await run(fault);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'error', origin, survived: 1 }));
    expect(lines).toContainEqual({ serving: true });
    expect(lines).not.toContainEqual({ drained: true });
    expect(code).toBe(0);
  });

  it.each([
    ['own-throw', 'uncaughtException'],
    ['own-rejection', 'unhandledRejection'],
    ['callback-throw', 'uncaughtException'],
  ])('drains and exits with 1 on any other error: %s', async (fault, origin) => {
    const { code, lines } = await run(fault);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'fatal', origin }));
    expect(lines).toContainEqual({ drained: true });
    expect(lines).not.toContainEqual({ serving: true });
    expect(code).toBe(1);
  });
});

describe('isDatabaseConnectionFault', () => {
  it("recognises the driver's connection errors as the driver raises them", async () => {
    const refused = postgres('postgres://postgres@127.0.0.1:1/none', { max: 1, connect_timeout: 2 });
    const connectError = await refused`select 1`.catch((error: unknown) => error);
    await refused.end({ timeout: 0 });
    expect(connectError).toMatchObject({ code: 'ECONNREFUSED' });
    expect(isDatabaseConnectionFault(connectError)).toBe(true);

    const ended = postgres('postgres://postgres@127.0.0.1:1/none', { max: 1 });
    await ended.end();
    const endedError = await ended`select 1`.catch((error: unknown) => error);
    expect(endedError).toMatchObject({ code: 'CONNECTION_ENDED' });
    expect(isDatabaseConnectionFault(endedError)).toBe(true);
    // as drizzle rejects it
    expect(isDatabaseConnectionFault(new Error('Failed query: select 1', { cause: endedError }))).toBe(true);
    // no host of several writable (the driver's patch, decision FO33)
    expect(isDatabaseConnectionFault(Object.assign(new Error('x'), { code: 'CONNECTION_TARGET_SESSION_ATTRS' }))).toBe(
      true,
    );
  });

  it('recognises a server going away, not other server errors', () => {
    const serverError = (code: string) => Object.assign(new Error('x'), { name: 'PostgresError', code });
    expect(isDatabaseConnectionFault(serverError('57P01'))).toBe(true);
    expect(isDatabaseConnectionFault(serverError('08006'))).toBe(true);
    expect(isDatabaseConnectionFault(serverError('23505'))).toBe(false);
  });

  it('does not take other errors for the driver', () => {
    expect(isDatabaseConnectionFault(new Error('boom'))).toBe(false);
    expect(isDatabaseConnectionFault('a string')).toBe(false);
    // a socket error of some other client (no query attached by postgres.js)
    expect(isDatabaseConnectionFault(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(false);
  });
});
