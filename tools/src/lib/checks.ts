/**
 * Checks API Extractor does not make by itself, run on its own outputs (doc model, report).
 * Each returns a list of problem sentences, each naming the package and the symbol.
 */
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';

/**
 * Whether an installed package ships its own declarations ("types"/"typings", a "types"
 * condition in exports, or index.d.ts). Unknown (not installed) counts as shipping them.
 */
export function shipsOwnTypes(fromDir: string, name: string) {
  for (let d = fromDir; ; d = path.dirname(d)) {
    const pj = path.join(d, 'node_modules', name, 'package.json');
    if (existsSync(pj)) {
      const j = JSON.parse(readFileSync(pj, 'utf8'));
      if (j.types || j.typings || JSON.stringify(j.exports ?? {}).includes('"types"')) return true;
      return existsSync(path.join(path.dirname(pj), 'index.d.ts'));
    }
    if (path.dirname(d) === d) return true;
  }
}

export interface ModelItem {
  /** "Foo" or "Foo.bar" */
  display: string;
  kind: string;
  /** "Public" | "Internal" | "Beta" | "Alpha" | "None" */
  releaseTag: string;
  docComment: string;
}

/**
 * Flattens a doc model into its API items (top-level exports and their members).
 */
export function modelItems(model: any): ModelItem[] {
  const out: ModelItem[] = [];
  const walk = (item: any, prefix: string, inherited: string) => {
    for (const m of item.members ?? []) {
      const name =
        m.kind === 'Constructor' || m.kind === 'ConstructSignature'
          ? '(constructor)'
          : m.kind === 'CallSignature'
            ? '(call)'
            : m.kind === 'IndexSignature'
              ? '[index]'
              : m.name;
      const display = prefix ? `${prefix}.${name}` : name;
      const releaseTag = m.releaseTag ?? inherited;
      out.push({ display, kind: m.kind, releaseTag, docComment: m.docComment ?? '' });
      walk(m, display, releaseTag);
    }
  };
  for (const entry of model?.members ?? []) walk(entry, '', 'None');
  return out;
}

/**
 * `@beta` and `@alpha` are not used in runledger: only `@public` and `@internal`.
 * API Extractor accepts them, so this check rejects them by name.
 */
export function releaseTagProblems(packageName: string, model: any) {
  const problems = [];
  const seen = new Set<string>();
  for (const item of modelItems(model)) {
    if (item.releaseTag !== 'Beta' && item.releaseTag !== 'Alpha') continue;
    if (seen.has(item.display)) continue;
    seen.add(item.display);
    problems.push(
      `${packageName}: "${item.display}" is tagged @${item.releaseTag.toLowerCase()}; only @public and @internal are allowed (tag it @public to freeze it, or @internal to keep it off the surface)`,
    );
  }
  return problems;
}

/**
 * The text of a TSDoc `@deprecated` block, or undefined when the comment has none.
 */
export function deprecationText(docComment: string) {
  const body = docComment
    .replace(/^\s*\/\*\*|\*\/\s*$/g, '')
    .split('\n')
    .map((l) => l.replace(/^\s*\*\s?/, ''))
    .join('\n');
  const m = /(^|\s)@deprecated\b([\s\S]*?)(?=(^|\s)@[a-zA-Z]+\b(?![^{]*\})|$)/.exec(body);
  if (!m) return undefined;
  return (m[2] ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * True when a deprecation message names its replacement: a `{@link X}` or "use X".
 */
export function namesReplacement(text: string) {
  return /\{@link\s+[^}\s][^}]*\}/.test(text) || /\buse\s+`?[A-Za-z_$][\w$.]*/i.test(text);
}

/**
 * Parses docs/deprecations.md: every table row with four cells (package, item, since, use instead).
 */
export function parseDeprecationTable(markdown: string): { pkg: string; item: string; since: string; useInstead: string; line: number }[] {
  const rows = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]?.trim() ?? '';
    if (!line.startsWith('|')) continue;
    const cells = line
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((c) => c.trim());
    if (cells.length < 4) continue;
    if (/^:?-+:?$/.test(cells[0] ?? '') || /^package$/i.test(cells[0] ?? '')) continue;
    const clean = (c: string | undefined) => (c ?? '').replace(/`/g, '').trim();
    rows.push({ pkg: clean(cells[0]), item: clean(cells[1]), since: clean(cells[2]), useInstead: clean(cells[3]), line: i + 1 });
  }
  return rows;
}

const EMPTY_CELL = /^(|-|—|–|n\/a|tbd|todo|\?)$/i;

/**
 * Every deprecated `@public` item names its replacement and has a complete row in
 * docs/deprecations.md; every row of this package names an item that is still deprecated.
 * @param models the doc models of the package's entry points (an item several export counts once)
 * @param deprecationsDoc  contents of docs/deprecations.md (undefined: missing)
 */
export function deprecationProblems(packageName: string, models: unknown[], deprecationsDoc: string | undefined): string[] {
  const problems: string[] = [];
  const deprecated: Map<string, string> = new Map();
  for (const item of models.flatMap(modelItems)) {
    if (item.releaseTag !== 'Public' || deprecated.has(item.display)) continue;
    const text = deprecationText(item.docComment);
    if (text === undefined) continue;
    deprecated.set(item.display, text);
    if (!namesReplacement(text)) {
      problems.push(
        `${packageName}: "${item.display}" is @deprecated without naming its replacement; write e.g. "@deprecated Use {@link Other} instead."`,
      );
    }
  }
  const rows = parseDeprecationTable(deprecationsDoc ?? '').filter((r) => r.pkg === packageName);
  if (deprecated.size > 0 && deprecationsDoc === undefined) {
    problems.push(`${packageName}: docs/deprecations.md is missing but ${[...deprecated.keys()].join(', ')} is deprecated`);
    return problems;
  }
  for (const [display] of deprecated) {
    const row = rows.find((r) => r.item === display);
    if (!row) {
      problems.push(
        `${packageName}: "${display}" is @deprecated but has no row in docs/deprecations.md (package | item | since | use instead)`,
      );
      continue;
    }
    if (EMPTY_CELL.test(row.since) || !/^\d+\.\d+\.\d+/.test(row.since)) {
      problems.push(
        `${packageName}: docs/deprecations.md line ${row.line}: "${display}" needs a "since" version (e.g. 0.3.0), found "${row.since}"`,
      );
    }
    if (EMPTY_CELL.test(row.useInstead)) {
      problems.push(`${packageName}: docs/deprecations.md line ${row.line}: "${display}" needs a "use instead" entry`);
    }
  }
  for (const row of rows) {
    if (!deprecated.has(row.item)) {
      problems.push(
        `${packageName}: docs/deprecations.md line ${row.line}: stale row "${row.item}" — it is not a deprecated @public item of ${packageName} (removed, renamed or no longer deprecated)`,
      );
    }
  }
  return problems;
}

/**
 * The npm package a module specifier belongs to ("zod/v4" -> "zod", "@a/b/c" -> "@a/b").
 */
export function packageOfSpecifier(spec: string) {
  if (spec.startsWith('node:')) return spec;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? spec);
}

/** Node's own modules: their types come from the platform, not from a dependency. */
const NODE_BUILTINS = new Set(builtinModules);

/**
 * Modules a report imports from, and `/// <reference types>` it carries.
 */
export function reportExternalModules(report: string) {
  const mods = new Set<string>();
  for (const [, spec = ''] of report.matchAll(/^import\s[^;]*?\sfrom\s+['"]([^'"]+)['"];?/gm)) mods.add(spec);
  for (const [, spec = ''] of report.matchAll(/^import\s+['"]([^'"]+)['"];?/gm)) mods.add(spec);
  for (const [, types = ''] of report.matchAll(/^\/\/\/\s*<reference\s+types=["']([^"']+)["']/gm)) mods.add(`types:${types}`);
  return [...mods];
}

/**
 * Third-party types on a surface must come from `dependencies` / `peerDependencies` or the
 * allow-list (Node's built-in modules and `@types/node` are always allowed).
 * @param allowList  package names (a trailing "*" matches a prefix)
 * @param packageDir  when given, a dependency without its own declarations must
 *   bring its `@types/*` package as a dependency too (consumers get no devDependencies)
 */
export function thirdPartyProblems(
  packageName: string,
  report: string,
  packageJson: Record<string, any>,
  allowList: string[],
  packageDir: string,
) {
  const deps = new Set([...Object.keys(packageJson.dependencies ?? {}), ...Object.keys(packageJson.peerDependencies ?? {})]);
  const allowed = (name: string) =>
    deps.has(name) ||
    (name.startsWith('@types/') && deps.has(name.slice('@types/'.length).replace(/^(.+)__(.+)$/, '@$1/$2'))) ||
    allowList.some((a) => (a.endsWith('*') ? name.startsWith(a.slice(0, -1)) : a === name));
  const problems = [];
  for (const spec of reportExternalModules(report)) {
    if (spec.startsWith('types:')) {
      const t = spec.slice('types:'.length);
      if (t === 'node' || allowed(`@types/${t}`) || allowed(t)) continue;
      problems.push(`${packageName}: the surface needs ambient types "${t}", which is neither a dependency nor allow-listed`);
      continue;
    }
    if (spec.startsWith('node:') || NODE_BUILTINS.has(spec)) continue;
    const pkg = packageOfSpecifier(spec);
    // another entry point of the package itself (lib/writeEntryTsconfig.ts): its consumers have it
    if (pkg === packageJson.name) continue;
    if (allowed(pkg)) {
      const typesPkg = `@types/${pkg.startsWith('@') ? pkg.slice(1).replace('/', '__') : pkg}`;
      if (packageDir && deps.has(pkg) && !shipsOwnTypes(packageDir, pkg) && !deps.has(typesPkg) && !allowList.includes(typesPkg)) {
        problems.push(
          `${packageName}: the surface exposes types from "${pkg}", which ships no declarations; "${typesPkg}" must be a dependency (or peerDependency), not a devDependency, or consumers get "any"`,
        );
      }
      continue;
    }
    const where = packageJson.devDependencies?.[pkg] ? ' (it is only a devDependency)' : '';
    problems.push(
      `${packageName}: the surface exposes types from "${pkg}"${where}; types on a surface must come from dependencies or peerDependencies, or from the allow-list in tools/api-allowlist.json`,
    );
  }
  return problems;
}
