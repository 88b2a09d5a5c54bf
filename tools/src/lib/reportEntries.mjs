// @ts-check
/**
 * Reads an API Extractor report into entries: one per export and per member, keyed and with its
 * declaration text normalised, its release tag, and the type expressions the classifier's
 * assignability checks need (classify.mjs).
 */
import ts from 'typescript';

/**
 * @typedef {object} Entry
 * @property {string} key          unique key, e.g. "type:ToolOutcome", "ToolResult.text"
 * @property {string} display      e.g. "ToolResult.text (method)"
 * @property {string} kind         function | const | class | interface | type | enum | namespace | method | property | constructor | signature
 * @property {string} text         normalised declaration text
 * @property {boolean} internal
 * @property {boolean} sealed
 * @property {string} [parent]     key of the container entry
 * @property {string} [access]     type expression of the item, with "$" standing for the O/N namespace
 * @property {string} [typeParams] type parameter list (text, constraints qualified with "$.")
 * @property {number} typeParamCount
 * @property {string} [typeArgs]   type arguments passing those parameters, e.g. "<T0, T1>"
 * @property {boolean} optional
 * @property {boolean} abstract
 * @property {boolean} readonly
 * @property {boolean} isStatic
 * @property {boolean} privateCtor
 * @property {string} [name]       the declared name (top level) for position analysis
 * @property {ts.Node} [node]
 */

/** Returns the TypeScript code block of an API report. @param {string} report */
export function reportCode(report) {
  const m = /```ts\n([\s\S]*?)\n```/.exec(report.replace(/\r\n/g, '\n'));
  return m ? (m[1] ?? '') : '';
}

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/** @param {ts.Node} node @param {ts.SourceFile} sf */
function print(node, sf) {
  return printer.printNode(ts.EmitHint.Unspecified, node, sf).replace(/\s+/g, ' ').trim();
}

/** Tags written by API Extractor in the "// @public @sealed" line above a declaration. */
function reportTags(/** @type {ts.Node} */ node, /** @type {ts.SourceFile} */ sf) {
  const ranges = ts.getLeadingCommentRanges(sf.text, node.pos) ?? [];
  const text = ranges.map((r) => sf.text.slice(r.pos, r.end)).join('\n');
  return {
    internal: /@internal\b/.test(text),
    sealed: /@sealed\b/.test(text),
    has: /\/\/\s*@(public|internal|beta|alpha)\b/.test(text),
  };
}

/** @param {ts.Node} node @param {ts.SyntaxKind} kind */
export const hasMod = (node, kind) => !!(/** @type {any} */ (node).modifiers ?? []).some((/** @type {ts.Node} */ m) => m.kind === kind);

/**
 * The member-name part of an indexed access ("['name']" or "[typeof Symbol.x]").
 * @param {ts.PropertyName} name @param {ts.SourceFile} sf
 */
function memberKey(name, sf) {
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) return { label: name.text, index: JSON.stringify(name.text) };
  if (ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return { label: name.text, index: JSON.stringify(name.text) };
  if (ts.isComputedPropertyName(name)) {
    const expr = name.expression.getText(sf);
    return { label: `[${expr}]`, index: `typeof ${expr}` };
  }
  return { label: name.getText(sf), index: JSON.stringify(name.getText(sf)) };
}

/**
 * Qualifies references to the report's own top-level names inside a type node's text with "$."
 * (so a type parameter constraint can be written outside the report module).
 * @param {ts.Node} node @param {ts.SourceFile} sf @param {Set<string>} topNames
 */
function qualify(node, sf, topNames) {
  const start = node.getStart(sf);
  const edits = [];
  /** @param {ts.Node} n */
  const visit = (n) => {
    /** @type {ts.EntityName | ts.Expression | undefined} */
    let name;
    if (ts.isTypeReferenceNode(n)) name = n.typeName;
    else if (ts.isTypeQueryNode(n)) name = n.exprName;
    else if (ts.isExpressionWithTypeArguments(n)) name = n.expression;
    if (name) {
      let left = name;
      while (ts.isQualifiedName(left) || ts.isPropertyAccessExpression(left)) left = ts.isQualifiedName(left) ? left.left : left.expression;
      if (ts.isIdentifier(left) && topNames.has(left.text)) edits.push(left.getStart(sf) - start);
    }
    ts.forEachChild(n, visit);
  };
  visit(node);
  let text = node.getText(sf);
  for (const pos of edits.sort((a, b) => b - a)) text = `${text.slice(0, pos)}$.${text.slice(pos)}`;
  return text;
}

/**
 * Type parameter declarations for a check alias, and the matching type arguments.
 * @param {ts.NodeArray<ts.TypeParameterDeclaration> | undefined} tps
 * @param {ts.SourceFile} sf @param {Set<string>} topNames
 */
function typeParamInfo(tps, sf, topNames) {
  if (!tps || tps.length === 0) return { typeParams: '', typeArgs: '', count: 0 };
  const names = tps.map((tp) => tp.name.text);
  const decl = tps
    .map((tp) => `${tp.name.text}${tp.constraint ? ` extends ${qualify(tp.constraint, sf, topNames)}` : ''}`)
    .join(', ');
  return { typeParams: `<${decl}>`, typeArgs: `<${names.join(', ')}>`, count: tps.length };
}

/**
 * Parses a report into entries.
 * @param {string} code @param {string} fileName
 * @returns {{entries: Map<string, Entry>, sf: ts.SourceFile, topNames: Set<string>}}
 */
export function parseReport(code, fileName = 'report.d.ts') {
  const sf = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  /** @type {Map<string, Entry>} */
  const entries = new Map();
  const topNames = new Set();
  for (const st of sf.statements) {
    if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) ts.isIdentifier(d.name) && topNames.add(d.name.text);
    else if (/** @type {any} */ (st).name && ts.isIdentifier(/** @type {any} */ (st).name)) topNames.add(/** @type {any} */ (st).name.text);
  }

  /** @param {Entry} e @param {ts.Node} [node] */
  const put = (e, node) => {
    const prev = entries.get(e.key);
    if (prev) {
      prev.text = `${prev.text}\n${e.text}`; // overloads, get/set pairs, declaration merging
      return prev;
    }
    e.node = node;
    entries.set(e.key, e);
    return e;
  };
  /** @returns {Entry} */
  const base = (/** @type {Partial<Entry>} */ e) =>
    /** @type {Entry} */ ({ internal: false, sealed: false, optional: false, abstract: false, readonly: false, isStatic: false, privateCtor: false, typeParamCount: 0, ...e });

  /**
   * Members of a class, interface or type literal.
   * @param {Entry} parent @param {readonly ts.Node[]} members @param {string} owner type expression of the container
   * @param {string} staticOwner type expression for static members
   */
  const addMembers = (parent, members, owner, staticOwner) => {
    for (const m of members) {
      const tags = reportTags(m, sf);
      const internal = tags.has ? tags.internal : parent.internal;
      if (hasMod(m, ts.SyntaxKind.PrivateKeyword) && !ts.isConstructorDeclaration(m)) continue;
      const isStatic = hasMod(m, ts.SyntaxKind.StaticKeyword);
      const common = { parent: parent.key, internal, sealed: parent.sealed, isStatic, typeParams: parent.typeParams, typeArgs: parent.typeArgs };
      if (ts.isConstructorDeclaration(m) || ts.isConstructSignatureDeclaration(m)) {
        const isClass = ts.isConstructorDeclaration(m);
        put(base({ ...common, key: `${parent.key}.(constructor)`, display: `${parent.name}.(constructor)`, kind: isClass ? 'constructor' : 'signature', text: print(m, sf), privateCtor: hasMod(m, ts.SyntaxKind.PrivateKeyword) || hasMod(m, ts.SyntaxKind.ProtectedKeyword), access: isClass ? `typeof $.${parent.name}` : undefined }), m);
        continue;
      }
      if (ts.isCallSignatureDeclaration(m) || ts.isIndexSignatureDeclaration(m)) {
        const label = ts.isCallSignatureDeclaration(m) ? '(call)' : `[index]`;
        put(base({ ...common, key: `${parent.key}.${label}`, display: `${parent.name}.${label}`, kind: 'signature', text: print(m, sf) }), m);
        continue;
      }
      const name = /** @type {any} */ (m).name;
      if (!name) continue;
      const { label, index } = memberKey(name, sf);
      const isMethod = ts.isMethodDeclaration(m) || ts.isMethodSignature(m);
      const kind = isMethod ? 'method' : 'property';
      const key = `${parent.key}.${isStatic ? 'static ' : ''}${label}`;
      put(
        base({
          ...common,
          key,
          display: `${parent.name}.${label} (${isStatic ? 'static ' : ''}${kind})`,
          kind,
          text: print(m, sf),
          optional: !!(/** @type {any} */ (m).questionToken),
          abstract: hasMod(m, ts.SyntaxKind.AbstractKeyword),
          readonly: hasMod(m, ts.SyntaxKind.ReadonlyKeyword) || (ts.isGetAccessorDeclaration(m) && !members.some((o) => ts.isSetAccessorDeclaration(o) && /** @type {any} */ (o).name?.getText(sf) === name.getText(sf))),
          access: `${isStatic ? staticOwner : owner}[${index}]`,
        }),
        m,
      );
    }
  };

  /** @param {ts.Statement} st */
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) || ts.isExportDeclaration(st) || ts.isExportAssignment(st)) continue;
    const tags = reportTags(st, sf);
    const internal = tags.internal;
    const sealed = tags.sealed;
    if (ts.isFunctionDeclaration(st) && st.name) {
      const n = st.name.text;
      put(base({ key: `value:${n}`, display: `${n} (function)`, kind: 'function', name: n, text: print(st, sf), internal, sealed, access: `typeof $.${n}` }), st);
    } else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        if (!ts.isIdentifier(d.name)) continue;
        const n = d.name.text;
        const e = put(base({ key: `value:${n}`, display: `${n} (const)`, kind: 'const', name: n, text: d.type && ts.isTypeLiteralNode(d.type) ? `const ${n}` : print(d, sf), internal, sealed, access: `typeof $.${n}` }), d);
        if (d.type && ts.isTypeLiteralNode(d.type)) {
          e.name = n;
          addMembers(e, d.type.members, `(typeof $.${n})`, `(typeof $.${n})`);
        }
      }
    } else if (ts.isClassDeclaration(st) && st.name) {
      const n = st.name.text;
      const tp = typeParamInfo(st.typeParameters, sf, topNames);
      const header = sf.text.slice(st.getStart(sf), st.members.pos).replace(/\{\s*$/, '').replace(/\s+/g, ' ').trim();
      const e = put(base({ key: `value:${n}`, display: `${n} (class)`, kind: 'class', name: n, text: header, internal, sealed, abstract: hasMod(st, ts.SyntaxKind.AbstractKeyword), access: `$.${n}${tp.typeArgs}`, typeParams: tp.typeParams, typeArgs: tp.typeArgs, typeParamCount: tp.count }), st);
      addMembers(e, st.members, `$.${n}${tp.typeArgs}`, `(typeof $.${n})`);
    } else if (ts.isInterfaceDeclaration(st)) {
      const n = st.name.text;
      const tp = typeParamInfo(st.typeParameters, sf, topNames);
      const header = sf.text.slice(st.getStart(sf), st.members.pos).replace(/\{\s*$/, '').replace(/\s+/g, ' ').trim();
      const e = put(base({ key: `type:${n}`, display: `${n} (interface)`, kind: 'interface', name: n, text: header, internal, sealed, access: `$.${n}${tp.typeArgs}`, typeParams: tp.typeParams, typeArgs: tp.typeArgs, typeParamCount: tp.count }), st);
      addMembers(e, st.members, `$.${n}${tp.typeArgs}`, `$.${n}${tp.typeArgs}`);
    } else if (ts.isTypeAliasDeclaration(st)) {
      const n = st.name.text;
      const tp = typeParamInfo(st.typeParameters, sf, topNames);
      const literal = ts.isTypeLiteralNode(st.type);
      const e = put(
        base({ key: `type:${n}`, display: `${n} (type)`, kind: literal ? 'interface' : 'type', name: n, text: literal ? `type ${n}${tp.typeParams}` : print(st, sf), internal, sealed, access: `$.${n}${tp.typeArgs}`, typeParams: tp.typeParams, typeArgs: tp.typeArgs, typeParamCount: tp.count }),
        st,
      );
      if (ts.isTypeLiteralNode(st.type)) addMembers(e, st.type.members, `$.${n}${tp.typeArgs}`, `$.${n}${tp.typeArgs}`);
    } else if (ts.isEnumDeclaration(st)) {
      const n = st.name.text;
      put(base({ key: `value:${n}`, display: `${n} (enum)`, kind: 'enum', name: n, text: print(st, sf), internal, sealed }), st);
    } else {
      const n = /** @type {any} */ (st).name?.getText?.(sf) ?? `statement@${st.pos}`;
      put(base({ key: `value:${n}`, display: `${n} (${ts.SyntaxKind[st.kind]})`, kind: 'other', name: n, text: print(st, sf), internal, sealed }), st);
    }
  }
  return { entries, sf, topNames };
}
