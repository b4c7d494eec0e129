/**
 * The methods the router serves on each path, for the 405 of a method a path does not list (decision C30).
 * Filled from Fastify's `onRoute` hook, so it knows every route the api registers (the contract's and the
 * health and documentation routes), and HEAD wherever GET is served (Fastify answers it).
 */
export class AllowedMethods {
  private readonly routes: Array<{ pattern: RegExp; methods: string[] }> = [];

  add(method: string | string[], url: string): void {
    // A wildcard route (CORS preflight's `OPTIONS *`) serves every path, and names none.
    if (url.includes('*')) return;
    const methods = (Array.isArray(method) ? method : [method]).map((m) => m.toUpperCase());
    if (methods.includes('GET')) methods.push('HEAD');
    const source = url
      .split('/')
      .map((segment) => {
        if (segment.startsWith(':')) return '[^/]+';
        return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      })
      .join('/');
    this.routes.push({ pattern: new RegExp(`^${source}$`), methods });
  }

  /** The methods served on `path` (without its query), in a stable order; empty when no route has the path. */
  allowed(path: string): string[] {
    const found = new Set<string>();
    for (const { pattern, methods } of this.routes) {
      if (pattern.test(path)) for (const method of methods) found.add(method);
    }
    const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
    return [...found].sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99) || a.localeCompare(b));
  }
}
