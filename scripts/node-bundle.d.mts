/** Declarations of node-bundle.mjs for the TypeScript callers (bench, test support). */
export declare const REQUIRE_SHIM: string;
export declare function packageVersion(): Promise<string>;
export declare function buildNodeBundles(options: {
  entryPoints: Record<string, string>;
  outdir: string;
  define?: Record<string, string>;
  banner?: string;
  sourcemap?: boolean;
}): Promise<void>;
