// @ts-check
/** Where each named type of a report appears: the variance model of the classifier (classify.mjs). */
import ts from 'typescript';
import { hasMod } from './reportEntries.mjs';

/**
 * Which named types appear where: "in" (users supply values: parameters) and/or "out" (users
 * receive values: returns, properties, consts). Types no value reaches are assumed both.
 * @param {ts.SourceFile} sf
 * @returns {Map<string, Set<'in' | 'out'>>}
 */
export function typePositions(sf) {
  /** @type {Map<string, ts.Node[]>} */
  const decls = new Map();
  for (const st of sf.statements) {
    if ((ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st) || ts.isClassDeclaration(st)) && st.name) {
      decls.set(st.name.text, [...(decls.get(st.name.text) ?? []), st]);
    }
  }
  /** @type {Map<string, Set<'in' | 'out'>>} */
  const pos = new Map();
  /** @type {[string, 'in' | 'out'][]} */
  const work = [];
  const flip = (/** @type {'in' | 'out'} */ p) => (p === 'in' ? 'out' : 'in');
  const mark = (/** @type {string} */ name, /** @type {'in' | 'out'} */ p) => {
    if (!decls.has(name)) return;
    const s = pos.get(name) ?? new Set();
    if (s.has(p)) return;
    s.add(p);
    pos.set(name, s);
    work.push([name, p]);
  };
  /** @param {ts.Node | undefined} node @param {'in' | 'out'} p */
  const walkType = (node, p) => {
    if (!node) return;
    if (ts.isTypeReferenceNode(node) || ts.isExpressionWithTypeArguments(node)) {
      const nameNode = ts.isTypeReferenceNode(node) ? node.typeName : node.expression;
      let left = /** @type {ts.Node} */ (nameNode);
      while (ts.isQualifiedName(left) || ts.isPropertyAccessExpression(left)) left = ts.isQualifiedName(left) ? left.left : left.expression;
      if (ts.isIdentifier(left)) mark(left.text, p);
      for (const a of node.typeArguments ?? []) walkType(a, p);
      return;
    }
    if (ts.isFunctionTypeNode(node) || ts.isConstructorTypeNode(node)) return walkSignature(node, p);
    if (ts.isTypeLiteralNode(node)) return walkMembers(node.members, p);
    ts.forEachChild(node, (c) => walkType(c, p));
  };
  /** @param {ts.SignatureDeclarationBase} sig @param {'in' | 'out'} p */
  const walkSignature = (sig, p) => {
    for (const prm of sig.parameters) walkType(prm.type, flip(p));
    walkType(sig.type, p);
  };
  /** @param {readonly ts.Node[]} members @param {'in' | 'out'} p */
  const walkMembers = (members, p) => {
    for (const m of members) {
      if (ts.isPropertySignature(m) || ts.isPropertyDeclaration(m)) walkType(m.type, p);
      else if (ts.isGetAccessorDeclaration(m)) walkType(m.type, p);
      else if (ts.isSetAccessorDeclaration(m)) for (const prm of m.parameters) walkType(prm.type, flip(p));
      else if (ts.isIndexSignatureDeclaration(m)) walkType(m.type, p);
      else if (ts.isMethodSignature(m) || ts.isMethodDeclaration(m) || ts.isCallSignatureDeclaration(m) || ts.isConstructSignatureDeclaration(m) || ts.isConstructorDeclaration(m)) {
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
    const [name, p] = /** @type {[string, 'in' | 'out']} */ (work.pop());
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
