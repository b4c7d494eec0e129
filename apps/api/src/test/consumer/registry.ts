/**
 * A package registry on loopback that serves only the tarballs it is given. The contract's consumer test installs
 * the packed client the way a frontend does (`npm install @nestegg/contract zod`), npm and pnpm resolving its
 * dependencies by range, with no network: a package or version it was not given is a 404 (decision C45).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';
import { gunzipSync } from 'node:zlib';

type Manifest = { name: string; version: string } & Record<string, unknown>;
type Published = { manifest: Manifest; file: string; bytes: Buffer };

export type LocalRegistry = { url: string; close(): Promise<void> };

const BLOCK = 512;

const headerField = (header: Buffer, start: number, length: number): string =>
  header
    .subarray(start, start + length)
    .toString('utf8')
    .replace(/\0[\s\S]*$/, '')
    .trim();

/** `package/package.json` of a packed tarball: a gzipped tar archive, as npm and pnpm write it. */
export function manifestOfTarball(gzipped: Buffer): Manifest {
  const archive = gunzipSync(gzipped);
  for (let offset = 0; offset + BLOCK <= archive.length; ) {
    const header = archive.subarray(offset, offset + BLOCK);
    const name = headerField(header, 0, 100);
    if (!name) break;
    const prefix = headerField(header, 345, 155);
    const size = Number.parseInt(headerField(header, 124, 12) || '0', 8);
    const start = offset + BLOCK;
    if ((prefix ? `${prefix}/${name}` : name) === 'package/package.json') {
      return JSON.parse(archive.subarray(start, start + size).toString('utf8')) as Manifest;
    }
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  throw new Error('the tarball holds no package/package.json');
}

const byVersion = (a: string, b: string): number => {
  const [left, right] = [a, b].map((version) => version.split('.').map(Number));
  const index = left!.findIndex((part, at) => part !== right![at]);
  return index < 0 ? 0 : left![index]! - right![index]!;
};

/** What a registry answers for a package name: every version's manifest with where to fetch it and its digest. */
function packument(name: string, published: Published[], url: string): unknown {
  const versions = published.map(({ manifest, file, bytes }) => [
    manifest.version,
    {
      ...manifest,
      _id: `${name}@${manifest.version}`,
      dist: {
        tarball: `${url}/-/${file}`,
        integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
        shasum: createHash('sha1').update(bytes).digest('hex'),
      },
    },
  ]);
  const latest = published
    .map(({ manifest }) => manifest.version)
    .sort(byVersion)
    .at(-1);
  return { name, 'dist-tags': { latest }, versions: Object.fromEntries(versions) };
}

function answer(path: string, published: Published[], url: string, response: ServerResponse): void {
  const tarball = path.startsWith('/-/') ? published.find(({ file }) => `/-/${file}` === path) : undefined;
  if (tarball) {
    response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tarball.bytes);
    return;
  }
  const name = decodeURIComponent(path.slice(1));
  const versions = published.filter(({ manifest }) => manifest.name === name);
  if (versions.length === 0) {
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument(name, versions, url)));
}

/** Serves the packages packed in `tarballs` (several versions of a name are one package) until `close`. */
export async function serveTarballs(tarballs: string[]): Promise<LocalRegistry> {
  const published = await Promise.all(
    tarballs.map(async (file): Promise<Published> => {
      const bytes = await readFile(file);
      return { manifest: manifestOfTarball(bytes), file: basename(file), bytes };
    }),
  );
  let url = '';
  const server = createServer((request, response) => {
    answer(new URL(request.url ?? '/', url).pathname, published, url, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
