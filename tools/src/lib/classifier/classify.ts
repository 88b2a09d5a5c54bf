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
 *
 * The classifier's sections, one file each: parse.ts (a report into entries), variance.ts (where
 * each type appears, and the directions an entry must still type-check in), assignability.ts (the
 * compiler run that decides those checks), this file (removed, added and changed entries, and the
 * level), formatClassification.ts (a classification as text).
 */
import path from 'node:path';
import { checkAssignability } from './assignability.ts';
import type { EntryCheck } from './assignability.ts';
import { parseReport, reportCode } from './parse.ts';
import type { Entry } from './parse.ts';
import { checksFor, typePositions } from './variance.ts';

export type Level = 'identical' | 'additive' | 'breaking';

export interface ChangeItem {
  display: string;
  level: Level;
  reason?: string;
  was?: string;
  now?: string;
  internal: boolean;
}

export interface Classification {
  level: Level;
  removed: ChangeItem[];
  changed: ChangeItem[];
  added: ChangeItem[];
  /** there was no old report */
  initial: boolean;
}

const RANK: Record<Level, number> = { identical: 0, additive: 1, breaking: 2 };

/** Raises a classification's level to `level` (a change confined to `@internal` items never does). */
export function raiseLevel(result: Classification, level: Level, internal = false): void {
  if (!internal && RANK[level] > RANK[result.level]) result.level = level;
}

/**
 * Classifies two API reports.
 * @param oldReport  undefined: the package had no report (initial surface)
 * @param options  folder whose node_modules resolve the reports' imports
 */
export function classifyReports(oldReport: string | undefined, newReport: string, options: { resolveDir?: string } = {}): Classification {
  const result: Classification = { level: 'identical', removed: [], changed: [], added: [], initial: oldReport === undefined };
  const resolveDir = path.resolve(options.resolveDir ?? process.cwd());
  const oldCode = reportCode(oldReport ?? '');
  const newCode = reportCode(newReport);
  const old = parseReport(oldCode, path.join(resolveDir, '__api_diff__', 'old.d.ts'));
  const neu = parseReport(newCode, path.join(resolveDir, '__api_diff__', 'new.d.ts'));
  const positions = typePositions(neu.sf);
  const oldPositions = typePositions(old.sf);
  for (const [k, v] of oldPositions) for (const p of v) positions.get(k)?.add(p);

  const raise = (level: Level, internal: boolean) => raiseLevel(result, level, internal);

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
    let level: Level = 'additive';
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
  const checks: EntryCheck[] = [];
  const pending = new Map<string, { o: Entry; n: Entry; derived: boolean }>();
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
      const level: Level = n.internal ? 'breaking' : 'additive';
      const reason = n.internal
        ? 'release tag changed @public → @internal: it leaves the semver-covered surface (gone from what consumers may use)'
        : 'release tag changed @internal → @public: it joins the semver-covered surface';
      result.changed.push({
        display: n.display,
        level,
        reason,
        was: `${o.internal ? '@internal' : '@public'} ${o.text}`,
        now: `${n.internal ? '@internal' : '@public'} ${n.text}`,
        internal: false,
      });
      raise(level, false);
      continue;
    }
    const derivedCandidate = o.text === n.text && n.kind === 'type' && n.typeParamCount === 0;
    if (o.text === n.text && !derivedCandidate) continue;
    const { checks: entryChecks, verdict } = checksFor(o, n, positions, neu.entries);
    if (verdict) {
      if (o.text === n.text) continue;
      if (verdict.level !== 'identical') {
        result.changed.push({
          display: n.display,
          level: verdict.level,
          reason: verdict.reason,
          was: o.text,
          now: n.text,
          internal: n.internal,
        });
        raise(verdict.level, n.internal);
      }
      continue;
    }
    pending.set(key, { o, n, derived: o.text === n.text });
    for (const c of entryChecks) checks.push({ ...c, key, typeParams: n.typeParams ?? '' });
  }
  if (pending.size === 0) return result;

  const verdicts = checkAssignability({ resolveDir, oldCode, newCode, checks });

  for (const [key, { o, n, derived }] of pending) {
    let was = o.text;
    let now = n.text;
    if (derived) {
      // Same text, but the alias may expand to something else (e.g. `(typeof X)[keyof typeof X]`
      // after a value was added to X). Compare the expanded types.
      ({ was, now } = verdicts.expandAlias(n.name ?? ''));
      if (was === now) continue;
    }
    let level: Level = verdicts.failed.has(key) ? 'breaking' : 'additive';
    let reason = verdicts.failed.get(key) ?? (derived ? 'widened in an input position' : 'still accepts every old use');
    if (level === 'additive' && verdicts.undecidable !== undefined) {
      level = 'breaking';
      reason = `cannot decide: ${verdicts.undecidable}`;
    }
    result.changed.push({ display: n.display, level, reason, was, now, internal: n.internal });
    raise(level, n.internal);
  }
  return result;
}
