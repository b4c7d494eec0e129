import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { glibcHeapsOf, MemorySampler, medianSample } from './memory-sampler.js';

const KIB = 1024;
const MIB = 1024 * KIB;

/** One smaps entry: the header line and its Rss line (the other fields do not matter here). */
function mapping(start: number, sizeKib: number, perms: string, rssKib: number, name = ''): string {
  const hex = (value: number) => value.toString(16).padStart(12, '0');
  return `${hex(start)}-${hex(start + sizeKib * KIB)} ${perms} 00000000 00:00 0 ${name}\nSize: ${sizeKib} kB\nRss: ${rssKib} kB\n`;
}

describe('glibcHeapsOf', () => {
  it('counts 64 MiB-aligned reservations of 64 MiB as thread arenas, and the brk heap apart', () => {
    const base = 0x7f00_0000_0000;
    const smaps = [
      mapping(0x5600_0000_0000, 8192, 'rw-p', 6000, '[heap]'),
      // An arena: 20 MiB in use (12 MiB resident), the rest of its 64 MiB reserved.
      mapping(base, 20 * 1024, 'rw-p', 12 * 1024),
      mapping(base + 20 * MIB, 44 * 1024, '---p', 0),
      // A second arena, used to its end.
      mapping(base + 64 * MIB, 64 * 1024, 'rw-p', 3000),
      // Not arenas: a 64 MiB region that does not start on a 64 MiB boundary, a thread stack, a file.
      mapping(base + 129 * MIB, 64 * 1024, 'rw-p', 5000),
      mapping(base + 200 * MIB, 4, '---p', 0),
      mapping(base + 200 * MIB + 4 * KIB, 8188, 'rw-p', 40),
      mapping(base + 256 * MIB, 64 * 1024, 'r-xp', 900, '/usr/lib/libvips.so'),
    ].join('');
    expect(glibcHeapsOf(smaps)).toEqual({ resident: (12 * 1024 + 3000) * KIB, count: 2, brk: 6000 * KIB });
  });
});

describe('medianSample', () => {
  it('takes each column’s median and leaves out what a source did not answer', () => {
    const sample = (rss: number, heapUsed: number | null) =>
      ({ at: rss, rss, heapUsed }) as unknown as Parameters<typeof medianSample>[0][number];
    expect(medianSample([sample(3, null), sample(1, 10), sample(2, 20)])).toMatchObject({
      rss: 2,
      heapUsed: 15,
    });
  });
});

describe('MemorySampler', () => {
  it('reads a child’s /proc files and, through the probe loaded with --import, its heap', async () => {
    const probe = fileURLToPath(new URL('./memory-probe.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--import', probe, '-e', 'globalThis.kept = Buffer.alloc(8 << 20, 1); setInterval(() => {}, 1000)'],
      {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      },
    );
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      const sampler = new MemorySampler(child, { probeTimeoutMs: 10_000 });
      let sample = await sampler.sample();
      for (let attempt = 0; sample.heapUsed === null && attempt < 20; attempt += 1) sample = await sampler.sample();
      // The first /proc read may come before Node has started its threads: read again once the probe answers.
      sample = await sampler.sample();
      expect(sample.rss).toBeGreaterThan(8 * MIB);
      expect(sample.anonymous).toBeGreaterThan(0);
      expect(sample.threads).toBeGreaterThan(1);
      expect(sample.heapUsed).toBeGreaterThan(0);
      expect(sample.arrayBuffers).toBeGreaterThanOrEqual(8 * MIB);
      expect(sample.youngGeneration).toBeGreaterThan(0);
      // No sharp in this process: the probe says so rather than guessing.
      expect(sample.vipsCache).toBeNull();
    } finally {
      child.kill();
    }
  });
});
