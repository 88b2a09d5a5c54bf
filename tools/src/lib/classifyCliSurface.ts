/**
 * Classifies the difference between two CLI surface reports (`api-reports/<name>.cli.json`, written
 * by `pnpm api:update` from a package's `dist/cli-surface.js`) as `identical`, `additive` or
 * `breaking`, with the same shape of result as the API report classification (classifier/classify.ts), so
 * the gate, `api:diff` and the history check treat a CLI change exactly like a report change.
 *
 * Inputs are what users type (commands, arguments, flags, environment variables); outputs are what
 * scripts read (exit codes, the `--json` output). The rules:
 * - breaking: a removed command, alias, argument, flag, flag environment variable or exit code; an
 *   exit code whose id changed (`OK`, `FAILED`, `USAGE`: the same number means something else); a
 *   new required argument or flag; an argument or flag that became required; a flag that starts or
 *   stops taking a value; an argument moved; a flag value no longer accepted (a removed choice, a
 *   flag that now has choices where it took any value, a narrower integer range); a changed,
 *   new or removed default; a `--json` output removed; in a `--json` output, a
 *   removed property, a property that became optional (it may be missing now), or a changed type
 *   (a type, enum, nullability or format that is not exactly the old one: outputs are frozen);
 * - additive: a new command, alias, optional argument or flag, environment variable or exit code;
 *   a flag or argument that became optional; a flag that accepts more (a new choice, a flag whose
 *   choices were dropped, a wider integer range); a new `--json` output; a new output property; an
 *   output property that became required (now always present);
 * - identical: anything else (placeholders, meanings and descriptions are words, not surface; a
 *   reworded exit code meaning with the same id, or an id given where an older report had none, is
 *   listed).
 */

import { raiseLevel } from './classifier/classify.ts';
import type { ChangeItem, Classification, Level } from './classifier/classify.ts';

/**
 * A JSON Schema node of a `--json` output as the report stores it, read keyword by keyword
 * (`properties`, `required`, `items`, `anyOf`, …); any JSON value may stand where a schema is.
 */
type JsonSchema = any;

/** A positional argument or a flag of a command: what users type. */
interface CliInput {
  name: string;
  required?: boolean;
  /** a flag's value placeholder ("<file>"), null for a switch */
  value?: string | null;
  env?: string;
  choices?: string[];
  min?: number;
  max?: number;
  default?: string;
}

interface CliCommand {
  name: string;
  aliases?: string[];
  arguments?: CliInput[];
  flags?: CliInput[];
  jsonOutput?: JsonSchema;
}

/** A CLI surface report (`api-reports/<name>.cli.json`), as cliSurface.ts writes it. */
interface CliSurfaceReport {
  program?: string | null;
  exitCodes?: { code: number; id?: string; meaning: string }[];
  commands?: CliCommand[];
}

/** JSON Schema keywords that describe rather than constrain: never part of the surface. */
const ANNOTATIONS = new Set(['$schema', 'title', 'description', 'examples', '$comment']);
/** Keywords whose subschemas are compared one by one (everything else of a node is compared as a whole). */
const STRUCTURAL = new Set(['properties', 'required', 'items', 'anyOf', 'additionalProperties', 'propertyNames']);

/** @param value @returns JSON with sorted keys */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * What a schema node says apart from its subschemas and annotations (type, enum, format, bounds…).
 */
function ownConstraints(node: JsonSchema): string {
  if (node === null || typeof node !== 'object') return canonical(node);
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (ANNOTATIONS.has(k) || (STRUCTURAL.has(k) && (k !== 'additionalProperties' || typeof v === 'object'))) continue;
    rest[k] = k === 'enum' && Array.isArray(v) ? [...v].map(canonical).sort() : v;
  }
  return canonical(rest);
}
function record(
  result: Classification,
  list: 'removed' | 'changed' | 'added',
  level: Level,
  display: string,
  reason: string,
  was?: unknown,
  now?: unknown,
): void {
  const item: ChangeItem = { display, level, reason, internal: false };
  if (was !== undefined) item.was = typeof was === 'string' ? was : canonical(was);
  if (now !== undefined) item.now = typeof now === 'string' ? now : canonical(now);
  result[list].push(item);
  raiseLevel(result, level);
}

/**
 * Compares one `--json` output schema node with its new version (output direction).
 * @param where e.g. "runs show --json" @param at property path
 */
function compareOutput(result: Classification, where: string, at: string, old: JsonSchema, neu: JsonSchema): void {
  const label = `${where}${at === '' ? '' : ` ${at}`}`;
  if (ownConstraints(old) !== ownConstraints(neu)) {
    record(
      result,
      'changed',
      'breaking',
      `${label} (JSON output)`,
      'changed type: scripts reading the output see another type',
      ownConstraints(old),
      ownConstraints(neu),
    );
    return;
  }
  if (old === null || typeof old !== 'object' || neu === null || typeof neu !== 'object') return;
  const oldProps = old.properties ?? {};
  const newProps = neu.properties ?? {};
  const oldRequired = new Set(old.required ?? []);
  const newRequired = new Set(neu.required ?? []);
  const path = (name: string) => (at === '' ? name : `${at}.${name}`);
  for (const name of Object.keys(oldProps).sort()) {
    if (!(name in newProps)) {
      record(
        result,
        'removed',
        'breaking',
        `${where} ${path(name)} (JSON output property)`,
        'removed: scripts that read it break',
        oldProps[name],
      );
      continue;
    }
    if (oldRequired.has(name) && !newRequired.has(name)) {
      record(
        result,
        'changed',
        'breaking',
        `${where} ${path(name)} (JSON output property)`,
        'became optional: scripts that read it may find it missing',
        'required',
        'optional',
      );
    } else if (!oldRequired.has(name) && newRequired.has(name)) {
      record(
        result,
        'changed',
        'additive',
        `${where} ${path(name)} (JSON output property)`,
        'became required: now always present',
        'optional',
        'required',
      );
    }
    compareOutput(result, where, path(name), oldProps[name], newProps[name]);
  }
  for (const name of Object.keys(newProps).sort()) {
    if (!(name in oldProps))
      record(result, 'added', 'additive', `${where} ${path(name)} (JSON output property)`, 'new property', undefined, newProps[name]);
  }
  if (old.items !== undefined || neu.items !== undefined) compareOutput(result, where, `${at}[]`, old.items, neu.items);
  for (const key of ['additionalProperties', 'propertyNames']) {
    if (typeof old[key] === 'object' || typeof neu[key] === 'object')
      compareOutput(result, where, `${at}{${key === 'propertyNames' ? 'key' : ''}}`, old[key], neu[key]);
  }
  if (old.anyOf !== undefined || neu.anyOf !== undefined) compareVariants(result, where, at, old.anyOf ?? [], neu.anyOf ?? []);
}

/**
 * The variants of an `anyOf` (a nullable value, a union): paired by their own constraints; a
 * variant gone or new changes the type (breaking); paired ones are compared further.
 */
function compareVariants(result: Classification, where: string, at: string, old: JsonSchema[], neu: JsonSchema[]): void {
  const kinds = (list: JsonSchema[]) => list.map(ownConstraints).sort();
  if (canonical(kinds(old)) !== canonical(kinds(neu))) {
    record(
      result,
      'changed',
      'breaking',
      `${where}${at === '' ? '' : ` ${at}`} (JSON output)`,
      'changed type: the variants of the value differ',
      kinds(old).join(' | '),
      kinds(neu).join(' | '),
    );
    return;
  }
  const remaining = [...neu];
  for (const variant of old) {
    const index = remaining.findIndex((n) => ownConstraints(n) === ownConstraints(variant));
    compareOutput(result, where, at, variant, remaining.splice(index, 1)[0]);
  }
}

/**
 * Compares the flags (or positional arguments) of one command: inputs, so a new required one
 * breaks old command lines and a removed one breaks scripts that pass it.
 */
function compareInputs(result: Classification, command: string, old: CliInput[], neu: CliInput[], what: 'flag' | 'argument'): void {
  const show = (i: CliInput) => (what === 'flag' ? `--${i.name}${i.value === null ? '' : ` ${i.value}`}` : `<${i.name}>`);
  const display = (i: CliInput) => `${command} ${what === 'flag' ? `--${i.name}` : `<${i.name}>`} (${what})`;
  const byName = new Map(neu.map((i, index) => [i.name, { i, index }]));
  old.forEach((o, index) => {
    const found = byName.get(o.name);
    if (!found) {
      record(result, 'removed', 'breaking', display(o), 'removed', show(o));
      return;
    }
    const n = found.i;
    if (what === 'argument' && found.index !== index)
      record(result, 'changed', 'breaking', display(o), `moved from position ${index + 1} to ${found.index + 1}`);
    if (what === 'flag' && (o.value === null) !== (n.value === null)) {
      record(
        result,
        'changed',
        'breaking',
        display(o),
        n.value === null ? 'no longer takes a value' : 'takes a value now',
        show(o),
        show(n),
      );
    } else if (what === 'flag' && o.value !== n.value) {
      record(result, 'changed', 'identical', display(o), 'placeholder renamed', show(o), show(n));
    }
    if (!o.required && n.required)
      record(
        result,
        'changed',
        'breaking',
        display(o),
        'became required: old command lines without it are refused',
        'optional',
        'required',
      );
    if (o.required && !n.required) record(result, 'changed', 'additive', display(o), 'became optional', 'required', 'optional');
    if (what === 'flag') compareFlagValues(result, display(o), o, n);
    if (o.env !== n.env) {
      const level = o.env === undefined ? 'additive' : 'breaking';
      record(
        result,
        'changed',
        level,
        display(o),
        o.env === undefined
          ? `now also read from ${n.env}`
          : n.env === undefined
            ? `no longer read from ${o.env}`
            : `read from ${n.env} instead of ${o.env}`,
        o.env ?? '(none)',
        n.env ?? '(none)',
      );
    }
  });
  const oldNames = new Set(old.map((i) => i.name));
  for (const n of neu) {
    if (oldNames.has(n.name)) continue;
    if (n.required)
      record(result, 'added', 'breaking', display(n), `new required ${what}: old command lines are refused`, undefined, show(n));
    else record(result, 'added', 'additive', display(n), `new optional ${what}`, undefined, show(n));
  }
}

/**
 * Compares what one flag accepts and what it defaults to: its choices, its integer range, its default.
 */
function compareFlagValues(result: Classification, display: string, o: CliInput, n: CliInput): void {
  const oldChoices = o.choices === undefined ? undefined : new Set(o.choices);
  const newChoices = n.choices === undefined ? undefined : new Set(n.choices);
  if (oldChoices === undefined && newChoices !== undefined) {
    record(
      result,
      'changed',
      'breaking',
      display,
      'accepts only its choices now: other values old command lines pass are refused',
      '(any value)',
      [...newChoices].join('|'),
    );
  } else if (oldChoices !== undefined && newChoices === undefined) {
    record(result, 'changed', 'additive', display, 'accepts any value now', [...oldChoices].join('|'), '(any value)');
  } else if (oldChoices !== undefined && newChoices !== undefined) {
    for (const c of oldChoices)
      if (!newChoices.has(c))
        record(result, 'removed', 'breaking', `${display} value ${c}`, 'choice removed: old command lines passing it are refused', c);
    for (const c of newChoices)
      if (!oldChoices.has(c)) record(result, 'added', 'additive', `${display} value ${c}`, 'new choice', undefined, c);
  }
  for (const [bound, narrower] of [
    ['min', (was: number, now: number) => now > was],
    ['max', (was: number, now: number) => now < was],
  ] as const) {
    const was = o[bound];
    const now = n[bound];
    if (was === now) continue;
    const breaking = was === undefined || (now !== undefined && narrower(was, now));
    record(
      result,
      'changed',
      breaking ? 'breaking' : 'additive',
      display,
      `${bound} ${breaking ? 'narrows the range: old values are refused' : 'widens the range'}`,
      was === undefined ? '(none)' : String(was),
      now === undefined ? '(none)' : String(now),
    );
  }
  if (o.default !== n.default) {
    record(
      result,
      'changed',
      'breaking',
      display,
      'changed default: command lines without the flag behave differently',
      o.default ?? '(none)',
      n.default ?? '(none)',
    );
  }
}
function parseSurface(text: string, which: string): CliSurfaceReport {
  try {
    return JSON.parse(text) as CliSurfaceReport;
  } catch (e) {
    throw new Error(`the ${which} CLI surface report is not JSON: ${(e as Error).message}`);
  }
}

/**
 * Classifies two CLI surface reports.
 * @param oldText  undefined: there was no CLI report (initial surface)
 */
export function classifyCliSurface(oldText: string | undefined, newText: string): Classification {
  const result: Classification = { level: 'identical', removed: [], changed: [], added: [], initial: oldText === undefined };
  const old: CliSurfaceReport = oldText === undefined ? { program: undefined, exitCodes: [], commands: [] } : parseSurface(oldText, 'old');
  const neu = parseSurface(newText, 'new');
  if (oldText !== undefined && old.program !== neu.program)
    record(result, 'changed', 'breaking', 'program name', 'the command users type changed', old.program, neu.program);

  const newCodes = new Map((neu.exitCodes ?? []).map((c) => [c.code, c]));
  const oldCodes = new Map((old.exitCodes ?? []).map((c) => [c.code, c]));
  for (const [code, o] of oldCodes) {
    const n = newCodes.get(code);
    if (!n) record(result, 'removed', 'breaking', `exit code ${code}`, 'removed', o.meaning);
    else if (o.id === undefined && n.id !== undefined)
      record(result, 'changed', 'identical', `exit code ${code}`, 'id given (a report from before exit code ids)', '(no id)', n.id);
    else if (n.id !== o.id)
      record(
        result,
        'changed',
        'breaking',
        `exit code ${code}`,
        `means ${n.id} now, not ${o.id}: scripts checking it act wrongly`,
        o.id ?? '(no id)',
        n.id ?? '(no id)',
      );
    else if (n.meaning !== o.meaning) record(result, 'changed', 'identical', `exit code ${code}`, 'meaning reworded', o.meaning, n.meaning);
  }
  for (const [code, n] of newCodes)
    if (!oldCodes.has(code)) record(result, 'added', 'additive', `exit code ${code}`, 'new exit code', undefined, n.meaning);

  const newCommands = new Map((neu.commands ?? []).map((c) => [c.name, c]));
  const oldCommands = new Map((old.commands ?? []).map((c) => [c.name, c]));
  for (const [name, o] of oldCommands) {
    const n = newCommands.get(name);
    if (!n) {
      record(result, 'removed', 'breaking', `${name} (command)`, 'removed');
      continue;
    }
    const newAliases = new Set(n.aliases ?? []);
    const oldAliases = new Set(o.aliases ?? []);
    for (const a of oldAliases) if (!newAliases.has(a)) record(result, 'removed', 'breaking', `${name} alias ${a}`, 'removed');
    for (const a of newAliases) if (!oldAliases.has(a)) record(result, 'added', 'additive', `${name} alias ${a}`, 'new alias');
    compareInputs(result, name, o.arguments ?? [], n.arguments ?? [], 'argument');
    compareInputs(result, name, o.flags ?? [], n.flags ?? [], 'flag');
    const where = `${name} --json`;
    if (o.jsonOutput && !n.jsonOutput) record(result, 'removed', 'breaking', `${where} (JSON output)`, 'removed');
    else if (!o.jsonOutput && n.jsonOutput) record(result, 'added', 'additive', `${where} (JSON output)`, 'new JSON output');
    else if (o.jsonOutput && n.jsonOutput) compareOutput(result, where, '', o.jsonOutput, n.jsonOutput);
  }
  for (const [name] of newCommands) if (!oldCommands.has(name)) record(result, 'added', 'additive', `${name} (command)`, 'new command');
  return result;
}
