/**
 * The oldest TypeScript each published entry point supports, as docs/consuming.md names it, and
 * the pack smoke step that proves it: the scratch project of `pnpm api:pack` gets each named
 * version installed from the registry under an alias (`typescript-5.0.4@npm:typescript@5.0.4`, in
 * the same install as the tarballs), and one `tsc -b` per version type-checks, under --strict with
 * skipLibCheck off, an ESM consumer of every entry that names it for ESM (module "nodenext", and
 * "bundler" resolution) and a CommonJS consumer (`.cts`, `import x = require()`, "nodenext") of
 * every entry that names it for CommonJS.
 *
 * What fails one version lower (checked against the packed declarations, 2026-12-04):
 * - ESM 5.0: `"moduleResolution": "bundler"` is new in 5.0 (4.9 refuses the option, TS6046);
 *   module "nodenext" alone would type-check from 4.7, which is not promised.
 * - ESM 5.7 for `@runledger/ai-sdk`: its peer `ai` 6's declarations (and `@ai-sdk/provider-utils`')
 *   write `Uint8Array<ArrayBuffer>`, generic only from 5.7 (TS2315 "Type 'Uint8Array' is not
 *   generic" on 5.6), and `NoInfer`, a global from 5.4 (TS2304 "Cannot find name 'NoInfer'").
 * - CommonJS 5.8: module "nodenext" lets CommonJS `require()` an ES module from 5.8 on; 5.7 refuses
 *   every entry with TS1471 ("cannot be imported using this construct").
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TypeCheckJob } from './typeCheckJobs.ts';

/** How a consumer loads an entry: an ES module, or CommonJS (require(esm)). */
export const ModuleKind = { ESM: 'esm', CJS: 'cjs' } as const;
export type ModuleKind = (typeof ModuleKind)[keyof typeof ModuleKind];

/** The oldest TypeScript an entry supports from ESM and from CommonJS: exact, tested versions. */
export interface OldestTypeScript {
  esm: string;
  cjs: string;
  /** why, for the table in docs/consuming.md */
  why: string;
}

/** The floor of every entry whose own declarations and dependencies ask for nothing newer. */
const DEFAULT_OLDEST: OldestTypeScript = {
  esm: '5.0.4',
  cjs: '5.8.3',
  why: '`"moduleResolution": "bundler"` is new in 5.0; CommonJS `require()` of ESM under `nodenext` is new in 5.8',
};

/**
 * Entries that need more than {@link DEFAULT_OLDEST}, by module specifier. Every other published
 * entry (lib/entries.ts) has the default.
 */
export const OLDEST_TYPESCRIPT_OVERRIDES: Readonly<Record<string, OldestTypeScript>> = {
  '@runledger/ai-sdk': {
    esm: '5.7.3',
    cjs: '5.8.3',
    why: "its peer `ai` 6's declarations use `Uint8Array<…>` (generic from 5.7) and `NoInfer` (5.4)",
  },
};

/** The oldest TypeScript of one entry (a module specifier such as `@runledger/trace/store`). */
export const oldestTypeScript = (specifier: string): OldestTypeScript => OLDEST_TYPESCRIPT_OVERRIDES[specifier] ?? DEFAULT_OLDEST;

/** The alias a version is installed under in the scratch project: `typescript-5.0.4`. */
export const typeScriptAlias = (version: string): string => `typescript-${version}`;

/** The devDependencies that install every named version: `{ "typescript-5.0.4": "npm:typescript@5.0.4" }`. */
export function oldestTypeScriptInstall(specifiers: readonly string[]): Record<string, string> {
  const versions = new Set(specifiers.flatMap((s) => [oldestTypeScript(s).esm, oldestTypeScript(s).cjs]));
  return Object.fromEntries([...versions].sort().map((v) => [typeScriptAlias(v), `npm:typescript@${v}`]));
}

/** The consumer file of one entry in one module kind: `oldest-ts/trace-store.mts`. */
const consumerFile = (specifier: string, kind: ModuleKind) =>
  `oldest-ts/${specifier.replace(/^@/, '').split('/').join('-')}.${kind === ModuleKind.ESM ? 'mts' : 'cts'}`;

/** A module's typed namespace must not be `any` (what an unresolved or untyped import gives). */
const IS_ANY = 'type IsAny<T> = 0 extends 1 & T ? true : false;';

/**
 * The type checks of every entry with the oldest TypeScript named for it, in a project where the
 * entries and the named versions (see {@link oldestTypeScriptInstall}) are installed: writes the
 * consumer files and configs, returns one job per version (lib/typeCheckJobs.ts runs them). Checked with Node's
 * types (`types: ["node"]`): that a library stands without them is the newest TypeScript's check.
 * @param project  the scratch project folder
 * @param specifiers  every published entry point
 * @param oldest  the named versions (tests pass a lower one to see the check fail)
 * @returns one job per version; a failure names the version, the entries, the mode and tsc's output
 */
export function oldestTypeScriptChecks({
  project,
  specifiers,
  oldest = oldestTypeScript,
}: {
  project: string;
  specifiers: readonly string[];
  oldest?: (specifier: string) => OldestTypeScript;
}): TypeCheckJob[] {
  const jobs: TypeCheckJob[] = [];
  mkdirSync(path.join(project, 'oldest-ts'), { recursive: true });
  for (const s of specifiers)
    for (const kind of [ModuleKind.ESM, ModuleKind.CJS]) {
      const load = kind === ModuleKind.ESM ? `import * as m from '${s}';` : `import m = require('${s}');`;
      writeFileSync(
        path.join(project, consumerFile(s, kind)),
        `${load}\n${IS_ANY}\nconst typed: IsAny<typeof m> = false;\nvoid typed;\nexport {};\n`,
      );
    }
  const versions = [...new Set(specifiers.flatMap((s) => [oldest(s).esm, oldest(s).cjs]))].sort();
  for (const version of versions) {
    const esm = specifiers.filter((s) => oldest(s).esm === version);
    const cjs = specifiers.filter((s) => oldest(s).cjs === version);
    const configs: { config: string; what: string }[] = [];
    const base = { target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: ['node'] };
    const config = (name: string, compilerOptions: Record<string, unknown>, files: string[], what: string) => {
      writeFileSync(path.join(project, name), JSON.stringify({ compilerOptions: { ...base, ...compilerOptions }, files }));
      configs.push({ config: name, what });
    };
    const nodenext = { module: 'nodenext', moduleResolution: 'nodenext' };
    if (esm.length > 0) {
      const files = esm.map((s) => consumerFile(s, ModuleKind.ESM));
      config(`tsconfig.oldest-${version}-esm.json`, nodenext, files, `ESM (nodenext) ${esm.join(', ')}`);
      config(
        `tsconfig.oldest-${version}-bundler.json`,
        { module: 'esnext', moduleResolution: 'bundler' },
        files,
        `ESM (bundler) ${esm.join(', ')}`,
      );
    }
    if (cjs.length > 0)
      config(
        `tsconfig.oldest-${version}-cjs.json`,
        nodenext,
        cjs.map((s) => consumerFile(s, ModuleKind.CJS)),
        `CommonJS (nodenext) ${cjs.join(', ')}`,
      );
    const what = configs.map((c) => c.what).join('; ');
    // One process per version: `tsc -b` checks every config of it (noEmit: nothing is written).
    jobs.push({
      tsc: path.join(project, 'node_modules', typeScriptAlias(version), 'bin', 'tsc'),
      args: ['-b', ...configs.map((c) => c.config)],
      passed: `types resolve on TypeScript ${version}, the oldest named: ${what}`,
      failed: `type-checking with TypeScript ${version}, the oldest docs/consuming.md names, failed (${what}; strict, skipLibCheck off)`,
    });
  }
  return jobs;
}
