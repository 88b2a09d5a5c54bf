/**
 * The variance model of the classifier: what users can do with an item decides which direction
 * must still type-check (see classify.ts for the rules). {@link typePositions} finds where each
 * named type of a report appears; {@link checksFor} turns an entry present in both reports into
 * the directional assignability checks its kind and position require.
 */
import ts from 'typescript';
import { hasMod } from './parse.ts';
import type { Entry } from './parse.ts';
import type { Level } from './classify.ts';

/** "in": users supply values of the type (parameters); "out": users receive them (returns, properties, consts). */
export type Position = 'in' | 'out';

/** Each named type of a report, with the positions it appears in. */
export type TypePositions = Map<string, Set<Position>>;

/** "`source` must still be assignable to `target`", both type expressions over the O/N namespaces. */
export interface DirectionalCheck {
  /** said when it fails */
  reason: string;
  target: string;
  source: string;
}

/**
 * Which named types appear where: "in" (users supply values: parameters) and/or "out" (users
 * receive values: returns, properties, consts). Types no value reaches are assumed both.
 */
export function typePositions(sf: ts.SourceFile): TypePositions {
  const decls: Map<string, ts.Node[]> = new Map();
  for (const st of sf.statements) {
    if ((ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st) || ts.isClassDeclaration(st)) && st.name) {
      decls.set(st.name.text, [...(decls.get(st.name.text) ?? []), st]);
    }
  }
  const pos: Map<string, Set<Position>> = new Map();
  const work: [string, Position][] = [];
  const flip = (p: Position): Position => (p === 'in' ? 'out' : 'in');
  const mark = (name: string, p: Position) => {
    if (!decls.has(name)) return;
    const s = pos.get(name) ?? new Set();
    if (s.has(p)) return;
    s.add(p);
    pos.set(name, s);
    work.push([name, p]);
  };
  const walkType = (node: ts.Node | undefined, p: Position) => {
    if (!node) return;
    if (ts.isTypeReferenceNode(node) || ts.isExpressionWithTypeArguments(node)) {
      const nameNode = ts.isTypeReferenceNode(node) ? node.typeName : node.expression;
      let left = nameNode as ts.Node;
      while (ts.isQualifiedName(left) || ts.isPropertyAccessExpression(left)) left = ts.isQualifiedName(left) ? left.left : left.expression;
      if (ts.isIdentifier(left)) mark(left.text, p);
      for (const a of node.typeArguments ?? []) walkType(a, p);
      return;
    }
    if (ts.isFunctionTypeNode(node) || ts.isConstructorTypeNode(node)) return walkSignature(node, p);
    if (ts.isTypeLiteralNode(node)) return walkMembers(node.members, p);
    ts.forEachChild(node, (c) => walkType(c, p));
  };
  const walkSignature = (sig: ts.SignatureDeclarationBase, p: Position) => {
    for (const prm of sig.parameters) walkType(prm.type, flip(p));
    walkType(sig.type, p);
  };
  const walkMembers = (members: readonly ts.Node[], p: Position) => {
    for (const m of members) {
      if (ts.isPropertySignature(m) || ts.isPropertyDeclaration(m)) walkType(m.type, p);
      else if (ts.isGetAccessorDeclaration(m)) walkType(m.type, p);
      else if (ts.isSetAccessorDeclaration(m)) for (const prm of m.parameters) walkType(prm.type, flip(p));
      else if (ts.isIndexSignatureDeclaration(m)) walkType(m.type, p);
      else if (
        ts.isMethodSignature(m) ||
        ts.isMethodDeclaration(m) ||
        ts.isCallSignatureDeclaration(m) ||
        ts.isConstructSignatureDeclaration(m) ||
        ts.isConstructorDeclaration(m)
      ) {
        if (ts.isConstructorDeclaration(m) && hasMod(m, ts.SyntaxKind.PrivateKeyword)) continue;
        walkSignature(m, p);
      }
    }
  };
  for (const st of sf.statements) {
    if (ts.isFunctionDeclaration(st)) walkSignature(st, 'out');
    else if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) walkType(d.type, 'out');
    else if (ts.isClassDeclaration(st)) {
      walkMembers(st.members, 'out');
      for (const h of st.heritageClauses ?? []) for (const t of h.types) walkType(t, 'out');
    }
  }
  while (work.length > 0) {
    const [name, p] = work.pop() as [string, Position];
    for (const d of decls.get(name) ?? []) {
      if (ts.isInterfaceDeclaration(d)) {
        walkMembers(d.members, p);
        for (const h of d.heritageClauses ?? []) for (const t of h.types) walkType(t, p);
      } else if (ts.isTypeAliasDeclaration(d)) walkType(d.type, p);
    }
  }
  for (const name of decls.keys()) if (!pos.has(name)) pos.set(name, new Set(['in', 'out']));
  return pos;
}

/**
 * The directions one entry present in both reports must still type-check in, by its kind and
 * where its container appears, or a verdict where no check can be formed (a changed kind, a
 * member made abstract or readonly, a constructor closed or opened).
 * @param positions from {@link typePositions} over both reports
 * @param newEntries the new report's entries, to find `n`'s container
 */
export function checksFor(
  o: Entry,
  n: Entry,
  positions: TypePositions,
  newEntries: Map<string, Entry>,
): { checks: DirectionalCheck[]; verdict?: { level: Level; reason: string } } {
  const checks: DirectionalCheck[] = [];
  const O = (a: string | undefined) => (a ?? '').replaceAll('$', 'O');
  const N = (a: string | undefined) => (a ?? '').replaceAll('$', 'N');
  const parent = n.parent ? newEntries.get(n.parent) : undefined;
  const containerPos = parent?.name ? positions.get(parent.name) : undefined;
  const implemented = !!(parent && parent.kind === 'interface' && containerPos?.has('in') && !parent.sealed);
  const inputOnly = (p: Set<Position> | undefined) => !!p && p.has('in') && !p.has('out');

  if (o.kind !== n.kind) {
    if ((o.kind === 'interface' || o.kind === 'type') && (n.kind === 'interface' || n.kind === 'type')) {
      // fall through to the type comparison below
    } else return { checks, verdict: { level: 'breaking', reason: `changed from ${o.kind} to ${n.kind}` } };
  }
  if (o.typeParamCount !== n.typeParamCount)
    return { checks, verdict: { level: 'breaking', reason: `type parameters changed (${o.typeParamCount} → ${n.typeParamCount})` } };

  switch (n.kind) {
    case 'function':
      checks.push({
        reason: 'no longer accepts the old calls or returns a type the old callers do not expect',
        target: O(o.access),
        source: N(n.access),
      });
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
        checks.push({
          reason: 'parameters changed on an interface users implement',
          target: `Parameters<${on}>`,
          source: `Parameters<${nn}>`,
        });
        checks.push({ reason: 'became required on an interface users implement', target: N(n.access), source: O(o.access) });
      }
      if (o.abstract !== n.abstract && n.abstract) return { checks, verdict: { level: 'breaking', reason: 'made abstract' } };
      break;
    }
    case 'property':
      if (!o.readonly && n.readonly) return { checks, verdict: { level: 'breaking', reason: 'made readonly' } };
      checks.push({
        reason: 'property type changed (users can no longer pass what they passed)',
        target: N(n.access),
        source: O(o.access),
      });
      if (parent?.kind !== 'interface' || !inputOnly(containerPos)) {
        checks.push({ reason: 'property type changed (users receive a different type)', target: O(o.access), source: N(n.access) });
      }
      if (o.abstract !== n.abstract && n.abstract) return { checks, verdict: { level: 'breaking', reason: 'made abstract' } };
      break;
    case 'constructor':
      if (n.privateCtor && !o.privateCtor) return { checks, verdict: { level: 'breaking', reason: 'constructor is no longer public' } };
      if (o.privateCtor) return { checks, verdict: { level: n.privateCtor ? 'identical' : 'additive', reason: 'constructor opened' } };
      checks.push({
        reason: 'constructor no longer accepts the old arguments',
        target: `ConstructorParameters<${N(n.access)}>`,
        source: `ConstructorParameters<${O(o.access)}>`,
      });
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
