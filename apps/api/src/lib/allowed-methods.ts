/**
 * The methods the router serves on each path, for the 405 of a method a path does not list (decisions C30, C48).
 * Filled from Fastify's `onRoute` hook, so it knows every route the api registers (the contract's and the
 * health and documentation routes), and HEAD wherever GET is served (Fastify answers it).
 *
 * A path belongs to the most specific template that matches it, as the router chooses: a literal segment before
 * a parameter. `/api/account/categories/reorder` is that literal path, never the category `{id}` "reorder", so
 * a DELETE on it is a method the path does not have, even though the router, which looks for a DELETE route,
 * finds `DELETE /api/account/categories/:id`.
 */
interface Template {
  url: string;
  pattern: RegExp;
  /** One character per segment, `0` literal and `1` parameter: the smaller, the more specific. */
  rank: string;
  segments: string[];
  methods: Set<string>;
}

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const isParameter = (segment: string) => segment.startsWith(':');

function templateOf(url: string): Template {
  const segments = url.split('/');
  const source = segments
    .map((segment) => (isParameter(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  const rank = segments.map((segment) => (isParameter(segment) ? '1' : '0')).join('');
  return { url, pattern: new RegExp(`^${source}$`), rank, segments, methods: new Set() };
}

/** Whether some path matches both: the same number of segments, and equal wherever both are literal. */
const overlap = (a: Template, b: Template): boolean =>
  a.segments.length === b.segments.length &&
  a.segments.every((segment, i) => isParameter(segment) || isParameter(b.segments[i]!) || segment === b.segments[i]);

const mostSpecific = (templates: Template[]): Template | undefined =>
  templates.reduce<Template | undefined>((best, t) => (!best || t.rank < best.rank ? t : best), undefined);

const ordered = (methods: Set<string>): string[] =>
  [...methods].sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b));

export class AllowedMethods {
  private readonly templates = new Map<string, Template>();
  /** Per template with parameters, the more specific templates that share some of its paths (built on first use). */
  private readonly shadows = new Map<string, Template[]>();

  add(method: string | string[], url: string): void {
    // A wildcard route (CORS preflight's `OPTIONS *`) serves every path, and names none.
    if (url.includes('*')) return;
    const methods = (Array.isArray(method) ? method : [method]).map((m) => m.toUpperCase());
    if (methods.includes('GET')) methods.push('HEAD');
    let template = this.templates.get(url);
    if (!template) {
      template = templateOf(url);
      this.templates.set(url, template);
    }
    for (const m of methods) template.methods.add(m);
    this.shadows.clear();
  }

  /** The methods served on `path` (without its query), in a stable order; empty when no route has the path. */
  allowed(path: string): string[] {
    const chosen = mostSpecific([...this.templates.values()].filter((t) => t.pattern.test(path)));
    return chosen ? ordered(chosen.methods) : [];
  }

  /**
   * For a request the router gave to the route at `url` (a template with parameters): the methods of the path
   * when a more specific template owns it (a literal segment where `url` has a parameter), else null.
   */
  ownedElsewhere(url: string, path: string): string[] | null {
    const owner = mostSpecific(this.shadowsOf(url).filter((t) => t.pattern.test(path)));
    return owner ? ordered(owner.methods) : null;
  }

  private shadowsOf(url: string): Template[] {
    let found = this.shadows.get(url);
    if (!found) {
      const own = this.templates.get(url) ?? templateOf(url);
      found = [...this.templates.values()].filter((t) => t.rank < own.rank && overlap(t, own));
      this.shadows.set(url, found);
    }
    return found;
  }
}
