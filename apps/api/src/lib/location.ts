/**
 * `Location` of a 201 answer: where the created resource is (decision C31). By default the collection's path
 * followed by the new `id`; a few creations name another place.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

type Body = Record<string, unknown>;

const idPath = (base: string, id: unknown): string | undefined =>
  typeof id === 'number' && Number.isInteger(id) ? `${base}/${id}` : undefined;

/** Creations whose resource does not live under the path they were posted to, by route template. */
const elsewhere: Record<string, (body: Body, path: string) => string | undefined> = {
  'POST /api/auth/signup': () => '/api/auth/profile',
  'POST /api/board/posts/:id/comments': (body) => idPath('/api/board/comments', body.id),
  'POST /api/board/tag-groups/:id/tags': (body) => idPath('/api/board/tags', body.id),
  'POST /api/board/images': (body) => (typeof body.url === 'string' ? body.url : undefined),
  'POST /api/account/entries/notification': (body) =>
    idPath('/api/account/entries', (body.entry as Body | undefined)?.id),
};

/** The `Location` of a 201 answer of the route `template` (Fastify's URL, e.g. `/api/account/entries`). */
export function locationOf(method: string, template: string, path: string, body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const special = elsewhere[`${method} ${template}`];
  return special ? special(body as Body, path) : idPath(path.replace(/\/$/, ''), (body as Body).id);
}

/** onSend hook of the contract's routes: adds `Location` to a 201 (first answers and idempotent replays alike). */
export function addLocation(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: Error | null, payload: unknown) => void,
): void {
  if (reply.statusCode === 201 && !reply.hasHeader('location') && typeof payload === 'string') {
    setLocation(request, reply, payload);
  }
  done(null, payload);
}

function setLocation(request: FastifyRequest, reply: FastifyReply, payload: string): void {
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return;
  }
  const location = locationOf(request.method, request.routeOptions.url ?? '', request.url.split('?')[0] ?? '', body);
  if (location) reply.header('location', location);
}
