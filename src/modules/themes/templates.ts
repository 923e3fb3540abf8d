/** Component names the service renders itself; an organiser's component may not take them. */
export const RESERVED_COMPONENT_NAMES = [
  'content',
  'head',
  'header',
  'footer',
  'powered_by',
  'tickets',
  'order',
  'checkout',
] as const;

export function isReservedComponentName(name: string): boolean {
  return (RESERVED_COMPONENT_NAMES as readonly string[]).includes(name.trim().toLowerCase());
}
