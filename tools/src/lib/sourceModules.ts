/**
 * The source modules of a workspace package, read with TypeScript's parser (no type check): which
 * files there are, what each imports (and whether the import is still there at run time) and what
 * each exports. The import-cycle and file-name checks of `lint-sources.ts` read them.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Folders that hold no source of the package: installs, builds, scratch, fixtures of tests. */
const NOT_SOURCE = new Set(['node_modules', 'dist', 'temp', 'coverage', '.turbo', 'fixtures']);
const SOURCE_FILE = /\.(?:ts|mts|cts|js|mjs|cjs)$/;
const DECLARATION_FILE = /\.d\.(?:ts|mts|cts)$/;

/** One `import … from` / `export … from` / `import '…'` of a module. */
export interface ModuleImport {
  readonly specifier: string;
  /** 1-based line of the statement. */
  readonly line: number;
  /**
   * False only for `import type …` and `export type … from`: erased, so no part of a run-time
   * cycle. `import { type A } from` stays at run time (`verbatimModuleSyntax` keeps it as
   * `import {} from`, which loads the module).
   */
  readonly runTime: boolean;
}

/** One name a module exports itself (re-exports are imports, not exports). */
export interface ModuleExport {
  readonly name: string;
  /** `type` for interfaces and type aliases (erased); `value` for everything that exists at run time. */
  readonly kind: 'value' | 'type';
  readonly line: number;
}

export interface SourceModule {
  /** Absolute path. */
  readonly file: string;
  readonly imports: readonly ModuleImport[];
  readonly exports: readonly ModuleExport[];
  /** True when the module re-exports from another (`export … from`): an entry point or a barrel. */
  readonly reExports: boolean;
}

/** Every source file of the package folder (declaration files and non-source folders left out), sorted. */
export function packageSourceFiles(packageDir: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!NOT_SOURCE.has(entry.name)) walk(full);
      } else if (SOURCE_FILE.test(entry.name) && !DECLARATION_FILE.test(entry.name)) found.push(full);
    }
  };
  walk(packageDir);
  return found.sort();
}

const hasModifier = (node: ts.Node, kind: ts.SyntaxKind): boolean =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === kind);

/** Reads the imports and exports of one module from its text. */
export function readSourceModule(file: string, text: string = readFileSync(file, 'utf8')): SourceModule {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const lineOf = (node: ts.Node): number => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const imports: ModuleImport[] = [];
  const exports: ModuleExport[] = [];
  let reExports = false;
  const exported = (name: string, kind: ModuleExport['kind'], node: ts.Node): void => {
    exports.push({ name, kind, line: lineOf(node) });
  };
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      imports.push({
        specifier: statement.moduleSpecifier.text,
        line: lineOf(statement),
        runTime: statement.importClause?.isTypeOnly !== true,
      });
    } else if (ts.isExportDeclaration(statement)) {
      if (statement.moduleSpecifier !== undefined && ts.isStringLiteral(statement.moduleSpecifier)) {
        reExports = true;
        imports.push({ specifier: statement.moduleSpecifier.text, line: lineOf(statement), runTime: !statement.isTypeOnly });
      } else if (statement.exportClause !== undefined && ts.isNamedExports(statement.exportClause)) {
        for (const element of statement.exportClause.elements) {
          exported(element.name.text, statement.isTypeOnly || element.isTypeOnly ? 'type' : 'value', element);
        }
      }
    } else if (ts.isExportAssignment(statement)) {
      exported('default', 'value', statement);
    } else if (hasModifier(statement, ts.SyntaxKind.ExportKeyword)) {
      const name = hasModifier(statement, ts.SyntaxKind.DefaultKeyword) ? 'default' : undefined;
      if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) {
        exported(statement.name.text, 'type', statement);
      } else if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          if (ts.isIdentifier(declaration.name)) exported(declaration.name.text, 'value', declaration);
        }
      } else if (
        ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isEnumDeclaration(statement) ||
        ts.isModuleDeclaration(statement)
      ) {
        const declared = statement.name !== undefined && ts.isIdentifier(statement.name) ? statement.name.text : undefined;
        const isType = ts.isModuleDeclaration(statement) && statement.body === undefined;
        exported(name ?? declared ?? 'default', isType ? 'type' : 'value', statement);
      }
    }
  }
  return { file, imports, exports, reExports };
}

/** The candidates a relative specifier names: `./x.js` is `./x.ts` in source (NodeNext), `./x.mjs` is `./x.mts`. */
const CANDIDATE_EXTENSIONS: Readonly<Record<string, readonly string[]>> = {
  '.js': ['.ts', '.js'],
  '.mjs': ['.mts', '.mjs'],
  '.cjs': ['.cts', '.cjs'],
  '.ts': ['.ts'],
  '.mts': ['.mts'],
  '.cts': ['.cts'],
};

/** The file a relative specifier of `fromFile` resolves to, or undefined (a package, or a file that is not there). */
export function resolveRelativeImport(fromFile: string, specifier: string): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const target = path.resolve(path.dirname(fromFile), specifier);
  const extension = path.extname(target);
  const base = target.slice(0, target.length - extension.length);
  const candidates = (CANDIDATE_EXTENSIONS[extension] ?? []).map((ext) => base + ext);
  if (extension === '') candidates.push(`${target}.ts`, path.join(target, 'index.ts'));
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}
