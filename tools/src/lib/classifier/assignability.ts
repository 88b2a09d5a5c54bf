/**
 * The assignability section of the classifier: one TypeScript program holding both reports (as
 * modules `O` and `N`) and a check module with one alias per directional check, compiled with the
 * pinned TypeScript. A check fails when its alias does not type-check; the variance model
 * (variance.ts) decides which checks an entry needs, classify.ts what a failure means.
 */
import ts from 'typescript';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { DirectionalCheck } from './variance.ts';

/** One directional check of one entry, with the type parameters the entry's aliases need. */
export interface EntryCheck extends DirectionalCheck {
  /** the entry's key */
  key: string;
  /** the entry's type parameter list, constraints qualified with "$." (or "") */
  typeParams: string;
}

/** What the compiler decided about the checks of a classification. */
export interface Assignability {
  /** entry key → the reason of its first failing check */
  failed: Map<string, string>;
  /**
   * Why nothing can be decided by assignability, when that is so: the reports import a module
   * that does not resolve from `resolveDir`, or the check module itself does not compile.
   */
  undecidable: string | undefined;
  /** A type alias of both reports, expanded (`(typeof X)[keyof typeof X]` → its union). */
  expandAlias: (name: string) => { was: string; now: string };
}

/** The lines of the check module before the first alias (diagnostics map back by line). */
const CHECK_HEADER = [
  `import type * as O from './old.js';`,
  `import type * as N from './new.js';`,
  `type __Assignable<Target, Source extends Target> = Source;`,
];

/**
 * Compiles the two report codes and one alias per check, and reports which entries fail.
 * @param resolveDir folder whose node_modules resolve the reports' imports
 */
export function checkAssignability({
  resolveDir,
  oldCode,
  newCode,
  checks,
}: {
  resolveDir: string;
  oldCode: string;
  newCode: string;
  checks: EntryCheck[];
}): Assignability {
  const dir = path.join(resolveDir, '__api_diff__');
  const aliases = checks.map((c, i) => `type __C${i}${c.typeParams.replaceAll('$.', 'N.')} = __Assignable<${c.target}, ${c.source}>;`);
  const files = {
    [path.join(dir, 'old.d.ts')]: `${oldCode}\nexport {};\n`,
    [path.join(dir, 'new.d.ts')]: `${newCode}\nexport {};\n`,
    [path.join(dir, 'check.ts')]: [...CHECK_HEADER, ...aliases, `export {};`].join('\n'),
  };
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts'],
    types: findUp(resolveDir, 'node_modules/@types/node') ? ['node'] : [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  };
  const program = ts.createProgram([path.join(dir, 'check.ts')], options, memoryHost(files, options));
  const checkFile = program.getSourceFile(path.join(dir, 'check.ts'));
  const checker = program.getTypeChecker();
  const reportFiles = [path.join(dir, 'old.d.ts'), path.join(dir, 'new.d.ts')].map((f) => program.getSourceFile(f));
  const blocking = program.getSemanticDiagnostics().filter((d) => d.file && reportFiles.includes(d.file) && d.code === 2307); // unresolved imports
  const failed = new Map<string, string>();
  for (const d of checkFile ? program.getSemanticDiagnostics(checkFile) : []) {
    if (d.start === undefined || !checkFile) continue;
    const check = checks[checkFile.getLineAndCharacterOfPosition(d.start).line - CHECK_HEADER.length];
    if (check && !failed.has(check.key)) failed.set(check.key, check.reason);
    if (!check) blocking.push(d); // the check module itself is broken: nothing can be decided
  }
  const first = blocking[0];
  const expand = (sf: ts.SourceFile | undefined, name: string) => {
    const st = sf?.statements.find((s) => ts.isTypeAliasDeclaration(s) && s.name.text === name);
    if (!st || !ts.isTypeAliasDeclaration(st)) return '';
    return checker.typeToString(
      checker.getTypeFromTypeNode(st.type),
      undefined,
      ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.InTypeAlias,
    );
  };
  return {
    failed,
    undecidable: first ? ts.flattenDiagnosticMessageText(first.messageText, ' ') : undefined,
    expandAlias: (name) => ({ was: expand(reportFiles[0], name), now: expand(reportFiles[1], name) }),
  };
}

/** Source files read from disk by {@link memoryHost}, by path and language options (one gate run: the files do not change). */
const DISK_SOURCE_FILES = new Map<string, ts.SourceFile>();

/**
 * A compiler host serving the two report modules and a check module from memory, everything
 * else (imports such as "@runledger/core" or "zod") from disk, resolved from `resolveDir`.
 * @param files absolute path -> text
 */
function memoryHost(files: Record<string, string>, options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options, true);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, lang, onError, create) => {
    const text = files[path.resolve(fileName)];
    if (text !== undefined) return ts.createSourceFile(fileName, text, lang, true);
    // the files on disk (TypeScript's lib, Node's types, the packages the reports import) are the
    // same for every comparison of a run: parsed (and bound) once, not once per compared report
    const key = `${path.resolve(fileName)}\0${typeof lang === 'object' ? `${lang.languageVersion}:${lang.impliedNodeFormat ?? ''}` : lang}`;
    const cached = DISK_SOURCE_FILES.get(key);
    if (cached !== undefined) return cached;
    const parsed = getSourceFile(fileName, lang, onError, create);
    if (parsed !== undefined) DISK_SOURCE_FILES.set(key, parsed);
    return parsed;
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (f) => files[path.resolve(f)] !== undefined || fileExists(f);
  const readFile = host.readFile.bind(host);
  host.readFile = (f) => files[path.resolve(f)] ?? readFile(f);
  const dirs = new Set(Object.keys(files).map((f) => path.dirname(f)));
  const directoryExists = host.directoryExists?.bind(host);
  host.directoryExists = (d) => dirs.has(path.resolve(d)) || (directoryExists ? directoryExists(d) : false);
  const realpath = host.realpath?.bind(host);
  host.realpath = (f) => (files[path.resolve(f)] !== undefined ? f : realpath ? realpath(f) : f);
  host.writeFile = () => {};
  return host;
}

/** Whether `rel` exists in `dir` or a folder above it. */
function findUp(dir: string, rel: string): boolean {
  for (let d = dir; ; d = path.dirname(d)) {
    if (existsSync(path.join(d, rel))) return true;
    if (path.dirname(d) === d) return false;
  }
}
