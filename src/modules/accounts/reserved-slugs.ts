/**
 * Account slugs that would clash with the service's own top-level paths (the account-scoped API
 * lives at /{account_slug}/...), or that could be mistaken for them. Compared lower-case.
 */
export const RESERVED_ACCOUNT_SLUGS: readonly string[] = [
  'api',
  'docs',
  '_mail',
  '_img',
  'o',
  'pay',
  'e',
  't',
  'healthz',
  'readyz',
  'static',
  'assets',
  'admin',
  'console',
  'login',
  'logout',
  'signup',
  'account',
  'accounts',
  'settings',
  'dashboard',
  'webhooks',
  'favicon.ico',
  'robots.txt',
  'sitemap.xml',
  '.well-known',
  'openapi.json',
  'health',
  'status',
  'metrics',
  'www',
  'mail',
  'images',
  'img',
  'public',
  'checkout',
  'orders',
  'tickets',
  'themes',
  'help',
  'support',
];

export function isReservedAccountSlug(slug: string): boolean {
  return RESERVED_ACCOUNT_SLUGS.includes(slug.trim().toLowerCase());
}
