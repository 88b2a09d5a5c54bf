/**
 * The tsconfig of one entry point's API Extractor run: the package's own, except that the
 * package's other entry points, imported by the package's name (a declaration of
 * `@runledger/trace/store` importing `StoredRun` from `@runledger/trace`), resolve as an external
 * module — as they do for a consumer, for whom `@runledger/trace` is another module than
 * `@runledger/trace/store`.
 *
 * Why a mapping is needed: API Extractor calls a module external when TypeScript's resolution says
 * `isExternalLibraryImport` (ExportAnalyzer `#isExternalModulePath`, @microsoft/api-extractor 7.60.1
 * lib-commonjs/analyzer/ExportAnalyzer.js), and TypeScript resolves a package's own name through its
 * "exports" (the self-name) with `isExternalLibraryImport: false` (typescript 6.0.3
 * `nodeModuleNameResolverWorker`, after `loadModuleFromSelfNameReference`). The main entry's
 * declarations would then count as part of the analysed entry, and each of its names the entry
 * mentions would be an ae-forgotten-export there. A `paths` mapping is tried before the self-name,
 * and its result is external when its path runs through a node_modules folder
 * (`pathContainsNodeModules`): the mapping written here goes through a scratch
 * `node_modules/<name>` link to the package itself. The entry's own specifier maps to its own
 * declarations, a local module (the package's tsconfig may map it to the sources, for its type
 * check). Nothing is silenced: a name the entry mentions
 * that no entry point exports is still an ae-forgotten-export, and the cross-package closure pass
 * (lib/extract.ts) reads the release tags of the main entry's names.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Another entry point of the package: what consumers import, and its declarations (package-relative). */
export interface SiblingEntry {
  readonly specifier: string;
  readonly types: string;
}

/**
 * Writes `<scratch>/tsconfig.json`, in which the `local` entries resolve to their declarations as
 * part of the analysis (the analysed entry; every entry in the closure pass) and the `others` as
 * external modules (through the `<scratch>/node_modules/<name>` link); returns its path. `scratch` is a fresh folder inside the package that the caller removes.
 * @param tsconfigPath the package's tsconfig.json
 */
export function writeEntryTsconfig(
  packageDir: string,
  packageName: string,
  tsconfigPath: string,
  local: readonly SiblingEntry[],
  others: readonly SiblingEntry[],
  scratch: string,
): string {
  const read = ts.readConfigFile(tsconfigPath, (file) => ts.sys.readFile(file));
  if (read.error) throw new Error(`${tsconfigPath}: ${ts.flattenDiagnosticMessageText(read.error.messageText, '\n')}`);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(tsconfigPath), undefined, tsconfigPath);
  const base = parsed.options.pathsBasePath ?? path.dirname(tsconfigPath);
  const paths: Record<string, string[]> = {};
  for (const [key, targets] of Object.entries(parsed.options.paths ?? {})) paths[key] = targets.map((t) => path.resolve(String(base), t));
  const link = path.join(scratch, 'node_modules', ...packageName.split('/'));
  if (others.length > 0) {
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(packageDir, link, 'dir');
  }
  for (const other of others) paths[other.specifier] = [path.join(link, other.types)];
  for (const entry of local) paths[entry.specifier] = [path.join(packageDir, entry.types)];
  const file = path.join(scratch, 'tsconfig.json');
  writeFileSync(
    file,
    JSON.stringify({
      extends: tsconfigPath,
      // ${configDir} in the package's config names the package folder; here it would name the scratch folder
      compilerOptions: { ...(parsed.options.rootDir === undefined ? {} : { rootDir: parsed.options.rootDir }), paths },
      files: parsed.fileNames,
    }),
  );
  return file;
}
