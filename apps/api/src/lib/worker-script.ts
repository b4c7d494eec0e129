import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

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
