/**
 * Loaded into the measured process with `node --import <this file>` (Node strips the types), so the
 * harness can read what only the process knows: `process.memoryUsage()` (V8's heap, external memory and
 * ArrayBuffers) and the size of libvips' operation cache. It answers `{ type: 'memory-probe', id }`
 * messages on the IPC channel and does nothing else; the channel does not keep the process alive.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { getHeapSpaceStatistics } from 'node:v8';

interface SharpCacheStats {
  memory: { current: number };
}
interface SharpModule {
  cache: () => SharpCacheStats;
}

/** The api's own sharp (the module the api imports, so the same libvips), found from MEMORY_PROBE_SHARP_FROM. */
let sharp: SharpModule | null | undefined;

async function vipsCacheBytes(): Promise<number | null> {
  const from = process.env.MEMORY_PROBE_SHARP_FROM;
  if (!from) return null;
  if (sharp === undefined) {
    try {
      // sharp exports no package.json: its CommonJS entry is dist/index.cjs, the one `import` loads is beside it.
      const commonJs = createRequire(join(from, 'package.json')).resolve('sharp');
      const module = (await import(pathToFileURL(join(dirname(commonJs), 'index.mjs')).href)) as {
        default: SharpModule;
      };
      sharp = module.default;
    } catch {
      sharp = null;
    }
  }
  // sharp reports the cache's memory in MB.
  return sharp ? Math.round(sharp.cache().memory.current * 1024 * 1024) : null;
}

if (process.send) {
  process.channel?.unref();
  process.on('message', (message: { type?: string; id?: number }) => {
    if (message?.type !== 'memory-probe') return;
    void vipsCacheBytes().then((vipsCache) =>
      process.send?.({
        type: 'memory-probe',
        id: message.id,
        usage: process.memoryUsage(),
        // The young generation's reserved size (its semi-spaces): part of heapTotal however little is live.
        youngGeneration: getHeapSpaceStatistics()
          .filter((space) => space.space_name === 'new_space' || space.space_name === 'new_large_object_space')
          .reduce((sum, space) => sum + space.space_size, 0),
        vipsCache,
      }),
    );
  });
}
