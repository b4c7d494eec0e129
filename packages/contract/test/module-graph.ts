import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SRC = new URL('../src/', import.meta.url);
const IMPORT = /^\s*(?:import|export)\b[^;'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm;

/** The source files (relative to src/) and the packages an entry point reaches through its imports. */
export const moduleGraph = (entry: string): { files: Set<string>; packages: Set<string> } => {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (url: URL) => {
    const file = fileURLToPath(url).slice(fileURLToPath(SRC).length);
    if (files.has(file)) return;
    files.add(file);
    for (const match of readFileSync(url, 'utf8').matchAll(IMPORT)) {
      const specifier = (match[1] ?? match[2])!;
      if (specifier.startsWith('.')) visit(new URL(specifier.replace(/\.js$/, '.ts'), url));
      else packages.add(specifier);
    }
  };
  visit(new URL(entry, SRC));
  return { files, packages };
};
