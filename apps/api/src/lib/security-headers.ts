/**
 * The headers every answer carries, errors and images included (an image route sets its own
 * Cache-Control, the docs page its own CSP). The set @fastify/helmet sends by default, with a CSP for
 * responses that carry no markup (nothing may load, frame or submit from them) and framing denied;
 * precomputed once and set in one call per request instead of a dozen middleware steps.
 */
export const baselineSecurityHeaders: Record<string, string> = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
  // Personal data and tokens must never sit in a shared cache; routes that may be cached say so themselves.
  'cache-control': 'no-store',
};
