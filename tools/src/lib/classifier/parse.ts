/**
 * Reads an API Extractor report into entries: one per export and per member, keyed and with its
 * declaration text normalised, its release tag, and the type expressions the classifier's
 * assignability checks need (assignability.ts). The parse section of the classifier.
 */
import ts from 'typescript';

export interface Entry {
  /** unique key, e.g. "type:ToolOutcome", "ToolResult.text" */
  key: string;
  /** e.g. "ToolResult.text (method)" */
  display: string;
  /** function | const | class | interface | type | enum | namespace | method | property | constructor | signature */
  kind: string;
  /** normalised declaration text */
  text: string;
  internal: boolean;
  sealed: boolean;
  /** key of the container entry */
  parent?: string;
  /** type expression of the item, with "$" standing for the O/N namespace */
  access?: string;
  /** type parameter list (text, constraints qualified with "$.") */
  typeParams?: string;
  typeParamCount: number;
  /** type arguments passing those parameters, e.g. "<T0, T1>" */
  typeArgs?: string;
  optional: boolean;
  abstract: boolean;
  readonly: boolean;
  isStatic: boolean;
  privateCtor: boolean;
  /** the declared name (top level) for position analysis */
  name?: string;
  node?: ts.Node;
}

/** Returns the TypeScript code block of an API report. */
export function reportCode(report: string) {
  const m = /```ts\n([\s\S]*?)\n```/.exec(report.replace(/\r\n/g, '\n'));
  return m ? (m[1] ?? '') : '';
}

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

function print(node: ts.Node, sf: ts.SourceFile) {
  return printer.printNode(ts.EmitHint.Unspecified, node, sf).replace(/\s+/g, ' ').trim();
}

/** Tags written by API Extractor in the "// @public @sealed" line above a declaration. */
function reportTags(node: ts.Node, sf: ts.SourceFile) {
  const ranges = ts.getLeadingCommentRanges(sf.text, node.pos) ?? [];
  const text = ranges.map((r) => sf.text.slice(r.pos, r.end)).join('\n');
  return {
    internal: /@internal\b/.test(text),
    sealed: /@sealed\b/.test(text),
    has: /\/\/\s*@(public|internal|beta|alpha)\b/.test(text),
  };
}

export const hasMod = (node: ts.Node, kind: ts.SyntaxKind): boolean =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === kind);

/**
 * The member-name part of an indexed access ("['name']" or "[typeof Symbol.x]").
 */
function memberKey(name: ts.PropertyName, sf: ts.SourceFile) {
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
 */
function qualify(node: ts.Node, sf: ts.SourceFile, topNames: Set<string>) {
  const start = node.getStart(sf);
  const edits: number[] = [];
  const visit = (n: ts.Node) => {
    let name: ts.EntityName | ts.Expression | undefined;
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
 */
/** A class's or interface's declaration up to its body, on one line (`class A<T> extends B`). */
function declarationHeader(node: ts.ClassDeclaration | ts.InterfaceDeclaration, sf: ts.SourceFile) {
  return sf.text
    .slice(node.getStart(sf), node.members.pos)
    .replace(/\{\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function typeParamInfo(tps: ts.NodeArray<ts.TypeParameterDeclaration> | undefined, sf: ts.SourceFile, topNames: Set<string>) {
  if (!tps || tps.length === 0) return { typeParams: '', typeArgs: '', count: 0 };
  const names = tps.map((tp) => tp.name.text);
  const decl = tps.map((tp) => `${tp.name.text}${tp.constraint ? ` extends ${qualify(tp.constraint, sf, topNames)}` : ''}`).join(', ');
  return { typeParams: `<${decl}>`, typeArgs: `<${names.join(', ')}>`, count: tps.length };
}

/**
 * Parses a report into entries.
 */
export function parseReport(
  code: string,
  fileName: string = 'report.d.ts',
): { entries: Map<string, Entry>; sf: ts.SourceFile; topNames: Set<string> } {
  const sf = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const entries: Map<string, Entry> = new Map();
  const topNames = new Set<string>();
  for (const st of sf.statements) {
    if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) ts.isIdentifier(d.name) && topNames.add(d.name.text);
    else if ((st as any).name && ts.isIdentifier((st as any).name)) topNames.add((st as any).name.text);
  }

  const put = (e: Entry, node: ts.Node) => {
    const prev = entries.get(e.key);
    if (prev) {
      prev.text = `${prev.text}\n${e.text}`; // overloads, get/set pairs, declaration merging
      return prev;
    }
    e.node = node;
    entries.set(e.key, e);
    return e;
  };
  const base = (e: Partial<Entry>): Entry =>
    ({
      internal: false,
      sealed: false,
      optional: false,
      abstract: false,
      readonly: false,
      isStatic: false,
      privateCtor: false,
      typeParamCount: 0,
      ...e,
    }) as Entry;

  /**
   * Members of a class, interface or type literal.
   * @param owner type expression of the container
   * @param staticOwner type expression for static members
   */
  const addMembers = (parent: Entry, members: readonly ts.Node[], owner: string, staticOwner: string) => {
    for (const m of members) {
      const tags = reportTags(m, sf);
      const internal = tags.has ? tags.internal : parent.internal;
      if (hasMod(m, ts.SyntaxKind.PrivateKeyword) && !ts.isConstructorDeclaration(m)) continue;
      const isStatic = hasMod(m, ts.SyntaxKind.StaticKeyword);
      const common = {
        parent: parent.key,
        internal,
        sealed: parent.sealed,
        isStatic,
        typeParams: parent.typeParams,
        typeArgs: parent.typeArgs,
      };
      if (ts.isConstructorDeclaration(m) || ts.isConstructSignatureDeclaration(m)) {
        const isClass = ts.isConstructorDeclaration(m);
        put(
          base({
            ...common,
            key: `${parent.key}.(constructor)`,
            display: `${parent.name}.(constructor)`,
            kind: isClass ? 'constructor' : 'signature',
            text: print(m, sf),
            privateCtor: hasMod(m, ts.SyntaxKind.PrivateKeyword) || hasMod(m, ts.SyntaxKind.ProtectedKeyword),
            access: isClass ? `typeof $.${parent.name}` : undefined,
          }),
          m,
        );
        continue;
      }
      if (ts.isCallSignatureDeclaration(m) || ts.isIndexSignatureDeclaration(m)) {
        const label = ts.isCallSignatureDeclaration(m) ? '(call)' : `[index]`;
        put(
          base({ ...common, key: `${parent.key}.${label}`, display: `${parent.name}.${label}`, kind: 'signature', text: print(m, sf) }),
          m,
        );
        continue;
      }
      const name = (m as any).name;
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
          optional: !!(m as any).questionToken,
          abstract: hasMod(m, ts.SyntaxKind.AbstractKeyword),
          readonly:
            hasMod(m, ts.SyntaxKind.ReadonlyKeyword) ||
            (ts.isGetAccessorDeclaration(m) &&
              !members.some((o) => ts.isSetAccessorDeclaration(o) && (o as any).name?.getText(sf) === name.getText(sf))),
          access: `${isStatic ? staticOwner : owner}[${index}]`,
        }),
        m,
      );
    }
  };

  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) || ts.isExportDeclaration(st) || ts.isExportAssignment(st)) continue;
    const tags = reportTags(st, sf);
    const internal = tags.internal;
    const sealed = tags.sealed;
    if (ts.isFunctionDeclaration(st) && st.name) {
      const n = st.name.text;
      put(
        base({
          key: `value:${n}`,
          display: `${n} (function)`,
          kind: 'function',
          name: n,
          text: print(st, sf),
          internal,
          sealed,
          access: `typeof $.${n}`,
        }),
        st,
      );
    } else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        if (!ts.isIdentifier(d.name)) continue;
        const n = d.name.text;
        const e = put(
          base({
            key: `value:${n}`,
            display: `${n} (const)`,
            kind: 'const',
            name: n,
            text: d.type && ts.isTypeLiteralNode(d.type) ? `const ${n}` : print(d, sf),
            internal,
            sealed,
            access: `typeof $.${n}`,
          }),
          d,
        );
        if (d.type && ts.isTypeLiteralNode(d.type)) {
          e.name = n;
          addMembers(e, d.type.members, `(typeof $.${n})`, `(typeof $.${n})`);
        }
      }
    } else if (ts.isClassDeclaration(st) && st.name) {
      const n = st.name.text;
      const tp = typeParamInfo(st.typeParameters, sf, topNames);
      const header = declarationHeader(st, sf);
      const e = put(
        base({
          key: `value:${n}`,
          display: `${n} (class)`,
          kind: 'class',
          name: n,
          text: header,
          internal,
          sealed,
          abstract: hasMod(st, ts.SyntaxKind.AbstractKeyword),
          access: `$.${n}${tp.typeArgs}`,
          typeParams: tp.typeParams,
          typeArgs: tp.typeArgs,
          typeParamCount: tp.count,
        }),
        st,
      );
      addMembers(e, st.members, `$.${n}${tp.typeArgs}`, `(typeof $.${n})`);
    } else if (ts.isInterfaceDeclaration(st)) {
      const n = st.name.text;
      const tp = typeParamInfo(st.typeParameters, sf, topNames);
      const header = declarationHeader(st, sf);
      const e = put(
        base({
          key: `type:${n}`,
          display: `${n} (interface)`,
          kind: 'interface',
          name: n,
          text: header,
          internal,
          sealed,
          access: `$.${n}${tp.typeArgs}`,
          typeParams: tp.typeParams,
          typeArgs: tp.typeArgs,
          typeParamCount: tp.count,
        }),
        st,
      );
      addMembers(e, st.members, `$.${n}${tp.typeArgs}`, `$.${n}${tp.typeArgs}`);
    } else if (ts.isTypeAliasDeclaration(st)) {
      const n = st.name.text;
      const tp = typeParamInfo(st.typeParameters, sf, topNames);
      const literal = ts.isTypeLiteralNode(st.type);
      const e = put(
        base({
          key: `type:${n}`,
          display: `${n} (type)`,
          kind: literal ? 'interface' : 'type',
          name: n,
          text: literal ? `type ${n}${tp.typeParams}` : print(st, sf),
          internal,
          sealed,
          access: `$.${n}${tp.typeArgs}`,
          typeParams: tp.typeParams,
          typeArgs: tp.typeArgs,
          typeParamCount: tp.count,
        }),
        st,
      );
      if (ts.isTypeLiteralNode(st.type)) addMembers(e, st.type.members, `$.${n}${tp.typeArgs}`, `$.${n}${tp.typeArgs}`);
    } else if (ts.isEnumDeclaration(st)) {
      const n = st.name.text;
      put(base({ key: `value:${n}`, display: `${n} (enum)`, kind: 'enum', name: n, text: print(st, sf), internal, sealed }), st);
    } else {
      const n = (st as any).name?.getText?.(sf) ?? `statement@${st.pos}`;
      put(
        base({
          key: `value:${n}`,
          display: `${n} (${ts.SyntaxKind[st.kind]})`,
          kind: 'other',
          name: n,
          text: print(st, sf),
          internal,
          sealed,
        }),
        st,
      );
    }
  }
  return { entries, sf, topNames };
}
