import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';

/**
 * Where a worker thread's script is, beside the module that starts it (`base`: its `import.meta.url`): the built
 * `.js` in production; the `.ts` source with tsx's loader and the workspace's source condition when the caller
 * itself runs from sources (tests, `pnpm dev`).
 */
export function workerScript(base: string, name: string): { url: URL; execArgv: string[] } {
  if (!base.endsWith('.ts')) return { url: new URL(`./${name}.js`, base), execArgv: [] };
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return { url: new URL(`./${name}.ts`, base), execArgv: ['--import', tsx, '--conditions=@nestegg/source'] };
}

/** The nice value of threads that read uploaded files: under CFS about a tenth of a request thread's share of a core. */
export const BACKGROUND_THREAD_NICE = 10;

/**
 * Lowers the CPU priority of the calling worker thread (decision P34): when the cores are short, requests come
 * before a 50,000-row statement or a backup being read, which only take longer. Linux only, where a nice value
 * belongs to one thread; elsewhere the same call would lower the whole process.
 */
export function lowerThreadPriority(): void {
  if (process.platform !== 'linux' || isMainThread) return;
  setPriority(BACKGROUND_THREAD_NICE);
}
