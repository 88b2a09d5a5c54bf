// @ts-check
/**
 * Classifies the difference between two API Extractor reports as `identical`, `additive` or
 * `breaking`, entry by entry. "Changed" entries are decided by TypeScript assignability between
 * the old and the new declarations (one program holding both, compiled with the pinned
 * TypeScript), never by text: a reformatted line is identical, an optional parameter is additive.
 *
 * Variance model (what users can do with an item decides which direction must still type-check):
 * - inputs (parameters, and types that only appear in input positions): every old value must
 *   still be accepted — old assignable to new. Widening an input is additive.
 * - outputs (return types, property types, consts, types users receive): frozen — new and old
 *   must be mutually assignable. Widening breaks consumers, narrowing breaks implementers and
 *   overriders. (A new member is an "added" entry, not a change of its container.)
 * - interfaces that appear in an input position are implemented by users (unless `@sealed`):
 *   a new required member on them is breaking, a new optional one additive.
 * - where a check cannot be formed (index/call signatures, enums, a changed kind), a textual
 *   change is breaking.
 * Changes confined to `@internal` items are listed but do not raise the classification: they are
 * not part of the semver-covered surface. A release tag is surface, though: an item (export or
 * member) whose tag flips `@public` → `@internal` is breaking, `@internal` → `@public` additive.
 */
import ts from 'typescript';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseReport, reportCode } from './reportEntries.mjs';
import { typePositions } from './typePositions.mjs';

/** @typedef {'identical' | 'additive' | 'breaking'} Level */

/**
 * @typedef {object} ChangeItem
 * @property {string} display
 * @property {Level} level
 * @property {string} [reason]
 * @property {string} [was]
 * @property {string} [now]
 * @property {boolean} internal
 */

/**
 * @typedef {object} Classification
 * @property {Level} level
 * @property {ChangeItem[]} removed
 * @property {ChangeItem[]} changed
 * @property {ChangeItem[]} added
 * @property {boolean} initial     there was no old report
 */

/** @typedef {import('./reportEntries.mjs').Entry} Entry */

/**
 * A compiler host serving the two report modules and a check module from memory, everything
 * else (imports such as "@runledger/core" or "zod") from disk, resolved from `resolveDir`.
 * @param {Record<string, string>} files absolute path -> text
 * @param {ts.CompilerOptions} options
 */
function memoryHost(files, options) {
  const host = ts.createCompilerHost(options, true);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, lang, onError, create) => {
    const text = files[path.resolve(fileName)];
    if (text !== undefined) return ts.createSourceFile(fileName, text, lang, true);
    return getSourceFile(fileName, lang, onError, create);
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

/** Converts a directional requirement into the assertion alias text. */
const assertAssignable = (/** @type {string} */ target, /** @type {string} */ source) => `__Assignable<${target}, ${source}>`;

/**
 * @typedef {object} Check
 * @property {string} key          entry key
 * @property {string} reason       said when it fails
 * @property {string} code         the alias line
 */

/**
 * Builds the checks for one entry present in both reports.
 * @param {Entry} o @param {Entry} n @param {Map<string, Set<'in'|'out'>>} positions
 * @param {Map<string, Entry>} newEntries
 * @returns {{checks: {reason: string, target: string, source: string}[], verdict?: {level: Level, reason: string}}}
 */
function checksFor(o, n, positions, newEntries) {
  /** @type {{reason: string, target: string, source: string}[]} */
  const checks = [];
  const O = (/** @type {string | undefined} */ a) => (a ?? '').replaceAll('$', 'O');
  const N = (/** @type {string | undefined} */ a) => (a ?? '').replaceAll('$', 'N');
  const parent = n.parent ? newEntries.get(n.parent) : undefined;
  const containerPos = parent?.name ? positions.get(parent.name) : undefined;
  const implemented = !!(parent && parent.kind === 'interface' && containerPos?.has('in') && !parent.sealed);
  const inputOnly = (/** @type {Set<string> | undefined} */ p) => !!p && p.has('in') && !p.has('out');

  if (o.kind !== n.kind) {
    if ((o.kind === 'interface' || o.kind === 'type') && (n.kind === 'interface' || n.kind === 'type')) {
      // fall through to the type comparison below
    } else return { checks, verdict: { level: 'breaking', reason: `changed from ${o.kind} to ${n.kind}` } };
  }
  if (o.typeParamCount !== n.typeParamCount) return { checks, verdict: { level: 'breaking', reason: `type parameters changed (${o.typeParamCount} → ${n.typeParamCount})` } };

  switch (n.kind) {
    case 'function':
      checks.push({ reason: 'no longer accepts the old calls or returns a type the old callers do not expect', target: O(o.access), source: N(n.access) });
      checks.push({ reason: 'return type changed (narrowed)', target: `ReturnType<${N(n.access)}>`, source: `ReturnType<${O(o.access)}>` });
      break;
    case 'method': {
      const on = `NonNullable<${O(o.access)}>`;
      const nn = `NonNullable<${N(n.access)}>`;
      checks.push({ reason: 'parameters no longer accept the old arguments', target: `Parameters<${nn}>`, source: `Parameters<${on}>` });
      checks.push({ reason: 'return type changed (widened)', target: `ReturnType<${on}>`, source: `ReturnType<${nn}>` });
      checks.push({ reason: 'return type changed (narrowed)', target: `ReturnType<${nn}>`, source: `ReturnType<${on}>` });
      checks.push({ reason: 'became optional', target: O(o.access), source: N(n.access) });
      if (implemented) {
        checks.push({ reason: 'parameters changed on an interface users implement', target: `Parameters<${on}>`, source: `Parameters<${nn}>` });
        checks.push({ reason: 'became required on an interface users implement', target: N(n.access), source: O(o.access) });
      }
      if (o.abstract !== n.abstract && n.abstract) return { checks, verdict: { level: 'breaking', reason: 'made abstract' } };
      break;
    }
    case 'property':
      if (!o.readonly && n.readonly) return { checks, verdict: { level: 'breaking', reason: 'made readonly' } };
      checks.push({ reason: 'property type changed (users can no longer pass what they passed)', target: N(n.access), source: O(o.access) });
      if (parent?.kind !== 'interface' || !inputOnly(containerPos)) {
        checks.push({ reason: 'property type changed (users receive a different type)', target: O(o.access), source: N(n.access) });
      }
      if (o.abstract !== n.abstract && n.abstract) return { checks, verdict: { level: 'breaking', reason: 'made abstract' } };
      break;
    case 'constructor':
      if (n.privateCtor && !o.privateCtor) return { checks, verdict: { level: 'breaking', reason: 'constructor is no longer public' } };
      if (o.privateCtor) return { checks, verdict: { level: n.privateCtor ? 'identical' : 'additive', reason: 'constructor opened' } };
      checks.push({ reason: 'constructor no longer accepts the old arguments', target: `ConstructorParameters<${N(n.access)}>`, source: `ConstructorParameters<${O(o.access)}>` });
      break;
    case 'const':
      checks.push({ reason: 'value type changed (users receive a different type)', target: O(o.access), source: N(n.access) });
      checks.push({ reason: 'value type changed (narrowed)', target: N(n.access), source: O(o.access) });
      break;
    case 'type':
    case 'interface': {
      const p = positions.get(n.name ?? '');
      checks.push({ reason: 'no longer accepts values users pass', target: N(n.access), source: O(o.access) });
      if (!inputOnly(p)) checks.push({ reason: 'users receive values of a different type', target: O(o.access), source: N(n.access) });
      break;
    }
    case 'class':
      if (!o.abstract && n.abstract) return { checks, verdict: { level: 'breaking', reason: 'class made abstract' } };
      checks.push({ reason: 'instances have a different type', target: O(o.access), source: N(n.access) });
      break;
    default:
      return { checks, verdict: { level: 'breaking', reason: `cannot decide a ${n.kind} change by assignability` } };
  }
  return { checks };
}

/**
 * Classifies two API reports.
 * @param {string | undefined} oldReport  undefined: the package had no report (initial surface)
 * @param {string} newReport
 * @param {{ resolveDir?: string }} [options]  folder whose node_modules resolve the reports' imports
 * @returns {Classification}
 */
export function classifyReports(oldReport, newReport, options = {}) {
  /** @type {Classification} */
  const result = { level: 'identical', removed: [], changed: [], added: [], initial: oldReport === undefined };
  const resolveDir = path.resolve(options.resolveDir ?? process.cwd());
  const oldCode = reportCode(oldReport ?? '');
  const newCode = reportCode(newReport);
  const old = parseReport(oldCode, path.join(resolveDir, '__api_diff__', 'old.d.ts'));
  const neu = parseReport(newCode, path.join(resolveDir, '__api_diff__', 'new.d.ts'));
  const positions = typePositions(neu.sf);
  const oldPositions = typePositions(old.sf);
  for (const [k, v] of oldPositions) for (const p of v) positions.get(k)?.add(p);

  const raise = (/** @type {Level} */ l, /** @type {boolean} */ internal) => {
    if (internal) return;
    const rank = { identical: 0, additive: 1, breaking: 2 };
    if (rank[l] > rank[result.level]) result.level = l;
  };

  // Removed (a member of a removed container is not listed again).
  for (const [key, e] of old.entries) {
    if (neu.entries.has(key)) continue;
    if (e.parent && !neu.entries.has(e.parent)) continue;
    result.removed.push({ display: e.display, level: e.internal ? 'identical' : 'breaking', was: e.text, internal: e.internal });
    raise('breaking', e.internal);
  }
  // Added.
  for (const [key, e] of neu.entries) {
    if (old.entries.has(key)) continue;
    if (e.parent && !old.entries.has(e.parent)) continue;
    let level = /** @type {Level} */ ('additive');
    let reason;
    const parent = e.parent ? neu.entries.get(e.parent) : undefined;
    if (parent) {
      const p = parent.name ? positions.get(parent.name) : undefined;
      if (parent.kind === 'interface' && p?.has('in') && !parent.sealed && !e.optional && e.kind !== 'constructor') {
        level = 'breaking';
        reason = 'a required member on an interface users implement (make it optional, or tag the interface @sealed)';
      } else if (parent.kind === 'class' && e.abstract) {
        level = 'breaking';
        reason = 'an abstract member: every subclass must now implement it';
      }
    }
    result.added.push({ display: e.display, level, reason, now: e.text, internal: e.internal });
    raise(level, e.internal);
  }

  // Present in both: decide by assignability.
  /** @type {{key: string, reason: string, line: string}[]} */
  const lines = [];
  /** @type {Map<string, {o: Entry, n: Entry, derived?: boolean}>} */
  const pending = new Map();
  for (const [key, n] of neu.entries) {
    const o = old.entries.get(key);
    if (!o) continue;
    if (o.internal !== n.internal) {
      // A release tag is surface: the report's "// @public" / "// @internal" line is a comment,
      // so the declaration texts compared below never see it. An item leaving the surface is
      // gone for consumers (breaking); one joining it is new to them (additive), whatever else
      // changed about it. A member that only follows its container's flip is not listed again.
      const oldParent = o.parent ? old.entries.get(o.parent) : undefined;
      const newParent = n.parent ? neu.entries.get(n.parent) : undefined;
      if (oldParent && newParent && oldParent.internal === o.internal && newParent.internal === n.internal) continue;
      const level = /** @type {Level} */ (n.internal ? 'breaking' : 'additive');
      const reason = n.internal
        ? 'release tag changed @public → @internal: it leaves the semver-covered surface (gone from what consumers may use)'
        : 'release tag changed @internal → @public: it joins the semver-covered surface';
      result.changed.push({ display: n.display, level, reason, was: `${o.internal ? '@internal' : '@public'} ${o.text}`, now: `${n.internal ? '@internal' : '@public'} ${n.text}`, internal: false });
      raise(level, false);
      continue;
    }
    const derivedCandidate = o.text === n.text && n.kind === 'type' && n.typeParamCount === 0;
    if (o.text === n.text && !derivedCandidate) continue;
    const { checks, verdict } = checksFor(o, n, positions, neu.entries);
    if (verdict) {
      if (o.text === n.text) continue;
      if (verdict.level !== 'identical') {
        result.changed.push({ display: n.display, level: verdict.level, reason: verdict.reason, was: o.text, now: n.text, internal: n.internal });
        raise(verdict.level, n.internal);
      }
      continue;
    }
    pending.set(key, { o, n, derived: o.text === n.text });
    const tp = n.typeParams ? n.typeParams.replaceAll('$.', 'N.') : '';
    for (const c of checks) lines.push({ key, reason: c.reason, line: `type __C${lines.length}${tp} = ${assertAssignable(c.target, c.source)};` });
  }
  if (pending.size === 0) return result;

  const dir = path.join(resolveDir, '__api_diff__');
  const files = {
    [path.join(dir, 'old.d.ts')]: `${oldCode}\nexport {};\n`,
    [path.join(dir, 'new.d.ts')]: `${newCode}\nexport {};\n`,
    [path.join(dir, 'check.ts')]: [
      `import type * as O from './old.js';`,
      `import type * as N from './new.js';`,
      `type __Assignable<Target, Source extends Target> = Source;`,
      ...lines.map((l) => l.line),
      `export {};`,
    ].join('\n'),
  };
  /** @type {ts.CompilerOptions} */
  const optionsTs = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts'],
    types: existsSync(path.join(resolveDir, 'node_modules', '@types', 'node')) || findUp(resolveDir, 'node_modules/@types/node') ? ['node'] : [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  };
  const program = ts.createProgram([path.join(dir, 'check.ts')], optionsTs, memoryHost(files, optionsTs));
  const checkFile = program.getSourceFile(path.join(dir, 'check.ts'));
  const checker = program.getTypeChecker();
  const reportFiles = [path.join(dir, 'old.d.ts'), path.join(dir, 'new.d.ts')].map((f) => program.getSourceFile(f));
  const reportErrors = program.getSemanticDiagnostics().filter((d) => d.file && reportFiles.includes(d.file) && d.code === 2307); // unresolved imports
  /** @type {Map<string, string>} */
  const failed = new Map();
  for (const d of checkFile ? program.getSemanticDiagnostics(checkFile) : []) {
    if (d.start === undefined || !checkFile) continue;
    const lineNo = checkFile.getLineAndCharacterOfPosition(d.start).line - 3;
    const l = lines[lineNo];
    if (l && !failed.has(l.key)) failed.set(l.key, l.reason);
    if (!l) reportErrors.push(d); // the check module itself is broken: nothing can be decided
  }

  for (const [key, { o, n, derived }] of pending) {
    let was = o.text;
    let now = n.text;
    if (derived) {
      // Same text, but the alias may expand to something else (e.g. `(typeof X)[keyof typeof X]`
      // after a value was added to X). Compare the expanded types.
      const expand = (/** @type {ts.SourceFile | undefined} */ sf) => {
        const st = sf?.statements.find((s) => ts.isTypeAliasDeclaration(s) && s.name.text === n.name);
        if (!st || !ts.isTypeAliasDeclaration(st)) return '';
        return checker.typeToString(checker.getTypeFromTypeNode(st.type), undefined, ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.InTypeAlias);
      };
      was = expand(reportFiles[0]);
      now = expand(reportFiles[1]);
      if (was === now) continue;
    }
    let level = /** @type {Level} */ (failed.has(key) ? 'breaking' : 'additive');
    let reason = failed.get(key) ?? (derived ? 'widened in an input position' : 'still accepts every old use');
    if (level === 'additive' && reportErrors.length > 0) {
      level = 'breaking';
      reason = `cannot decide: ${ts.flattenDiagnosticMessageText(reportErrors[0]?.messageText ?? '', ' ')}`;
    }
    result.changed.push({ display: n.display, level, reason, was, now, internal: n.internal });
    raise(level, n.internal);
  }
  return result;
}

/** @param {string} dir @param {string} rel */
function findUp(dir, rel) {
  for (let d = dir; ; d = path.dirname(d)) {
    if (existsSync(path.join(d, rel))) return true;
    if (path.dirname(d) === d) return false;
  }
}
