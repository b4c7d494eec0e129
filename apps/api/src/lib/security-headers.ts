/** API responses carry no markup, so nothing may load, frame or submit from them. */
export const API_CSP_DIRECTIVES = {
  defaultSrc: ["'none'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'none'"],
};

/**
 * The floor every answer gets, also where helmet's request hook never ran (framework errors before
 * routing, Node's own parser errors on the raw socket). Helmet sets the same values on routed requests.
 */
export const baselineSecurityHeaders: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};
