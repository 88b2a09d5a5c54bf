/**
 * The CLI surface report of a package with a `bin`: `api-reports/<unscoped>.cli.json`, the
 * package's commands, flags, exit codes and `--json` output schemas. The package declares them
 * itself and its build exposes them as `dist/cli-surface.js`, exporting `cliSurfaceDocument()`
 * (in @runledger/cli: src/cli/cliSurfaceDocument.ts); this file loads that document and writes it
 * stable — keys sorted, commands by name, flags by name, exit codes by code, positional arguments
 * kept in their order — so the committed report changes only when the surface does.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Where a package's build exposes its CLI surface (relative to the package folder). */
export const CLI_SURFACE_MODULE = 'dist/cli-surface.js';

/**
 * Whether a package has a CLI surface to freeze: it declares a `bin`.
 */
export const hasCliSurface = (pkg: { json: Record<string, any> }) =>
  pkg.json.bin !== undefined && Object.keys(typeof pkg.json.bin === 'string' ? { bin: pkg.json.bin } : pkg.json.bin).length > 0;

/**
 * Sorts a CLI surface document into its stable form (see the file comment).
 * @param key the property holding `value`
 */
function stable(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) {
    const items = value.map((v) => stable(v));
    if (key === 'commands' || key === 'flags') return items.sort((a, b) => String((a as any).name).localeCompare(String((b as any).name)));
    if (key === 'exitCodes') return items.sort((a, b) => (a as any).code - (b as any).code);
    if (key === 'required' || key === 'aliases' || key === 'enum')
      return items.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    return items;
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = stable((value as Record<string, unknown>)[k], k);
    return out;
  }
  return value;
}

/**
 * The report text of a CLI surface document: stable, pretty JSON ending in a newline.
 */
export function cliSurfaceText(document: unknown) {
  return `${JSON.stringify(stable(document), null, 2)}\n`;
}

/**
 * The fresh CLI surface report of a built package, or an error naming what is missing. The module
 * is loaded in a child Node process (it brings its own zod and workspace dependencies).
 */
export function freshCliSurface(packageDir: string): { text: string } | { error: string } {
  const file = path.join(packageDir, CLI_SURFACE_MODULE);
  if (!existsSync(file))
    return {
      error: `${CLI_SURFACE_MODULE} is missing: a package with a "bin" must build one exporting cliSurfaceDocument() (run "pnpm build")`,
    };
  const script = `const m = await import(${JSON.stringify(pathToFileURL(file).href)}); if (typeof m.cliSurfaceDocument !== 'function') { console.error('it does not export cliSurfaceDocument()'); process.exit(3); } process.stdout.write(JSON.stringify(m.cliSurfaceDocument()));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: packageDir,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) return { error: `loading ${CLI_SURFACE_MODULE} failed: ${`${r.stderr}`.trim().split('\n').slice(-3).join(' ')}` };
  return { text: cliSurfaceText(JSON.parse(r.stdout)) };
}
