// Types for bin/build.mjs (plain JavaScript so that it runs before anything is compiled).
export interface BuildPaths {
  /** the TypeScript sources (src/) */
  src?: string;
  /** where the compiled tree goes (dist/) */
  out?: string;
}
export function build(paths?: BuildPaths): Promise<{ files: number; ms: number }>;
export function buildIsFresh(paths?: BuildPaths): boolean;
