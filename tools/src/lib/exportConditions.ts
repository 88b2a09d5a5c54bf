import { SOURCE_CONDITION } from '../../../source-condition.mjs';

/**
 * The conditions of a published package's `exports`: every subpath that maps to conditions lists
 * `types` first (TypeScript picks the first match) and ends with `default`, the one `require()`
 * matches. Without `default`, `require('@runledger/x')` fails with ERR_PACKAGE_PATH_NOT_EXPORTED
 * even on Node ≥ 20.19, which can load ESM from require — and neither publint nor attw notice:
 * attw resolves the declarations through `types` and reports the require path as fine.
 */

/**
 * @returns one sentence per problem, naming the package, the field and the rule
 */
export function exportConditionProblems(pkg: { name: string; json: Record<string, any> }): string[] {
  const exportsField = pkg.json.exports;
  if (exportsField === null || typeof exportsField !== 'object' || Array.isArray(exportsField)) {
    return [`${pkg.name}: package.json "exports" must be an object of subpaths (".": { "types", "import", "default" })`];
  }
  const problems: string[] = [];
  for (const [subpath, target] of Object.entries<unknown>(exportsField)) {
    if (typeof target === 'string') continue; // "./package.json": "./package.json"
    const field = `exports[${JSON.stringify(subpath)}]`;
    if (target === null || typeof target !== 'object' || Array.isArray(target)) {
      problems.push(`${pkg.name}: package.json ${field} must be a path or an object of conditions`);
      continue;
    }
    const conditions = target as Record<string, unknown>;
    const keys = Object.keys(target);
    if (keys[0] !== 'types')
      problems.push(
        `${pkg.name}: package.json ${field} must list "types" first (found ${keys.map((k) => `"${k}"`).join(', ') || 'no condition'}): TypeScript takes the first condition that matches`,
      );
    if (!('default' in target)) {
      problems.push(
        `${pkg.name}: package.json ${field} has no "default" condition: require('${pkg.name}${subpath === '.' ? '' : subpath.slice(1)}') fails with ERR_PACKAGE_PATH_NOT_EXPORTED (add "default" after "import", the same file)`,
      );
    } else if (keys[keys.length - 1] !== 'default') {
      problems.push(`${pkg.name}: package.json ${field} must list "default" last: the conditions after it are never reached`);
    } else if (typeof conditions.import === 'string' && conditions.default !== conditions.import) {
      problems.push(
        `${pkg.name}: package.json ${field}.default is ${String(conditions.default)} but .import is ${conditions.import}: require() and import must load the same file (one ESM build, no dual package)`,
      );
    }
  }
  return problems;
}

/**
 * A package's `exports` name its sources under SOURCE_CONDITION (tests resolve sibling packages
 * through it; tsup builds those entries), and `publishConfig.exports` is what npm users get: the
 * same subpaths and conditions without it. The two are written by hand side by side, so this
 * checks they never drift: a subpath added to one and not the other, or a target that differs.
 * @returns one sentence per problem, naming the package, the field and the rule
 */
export function publishedExportsProblems(pkg: { name: string; json: Record<string, any> }): string[] {
  const exportsField: unknown = pkg.json.exports;
  const published: unknown = pkg.json.publishConfig?.exports;
  if (exportsField === null || typeof exportsField !== 'object') return []; // exportConditionProblems says it
  const problems: string[] = [];
  const expected: Record<string, unknown> = {};
  for (const [subpath, target] of Object.entries(exportsField)) {
    if (target === null || typeof target !== 'object') {
      expected[subpath] = target;
      continue;
    }
    const { [SOURCE_CONDITION]: source, ...rest } = target as Record<string, unknown>;
    if (typeof source !== 'string' || !/^\.\/src\/.+\.ts$/.test(source)) {
      problems.push(
        `${pkg.name}: package.json exports[${JSON.stringify(subpath)}]["${SOURCE_CONDITION}"] must name the entry's TypeScript source (./src/….ts), found ${JSON.stringify(source)}: tests and the build read it`,
      );
    }
    expected[subpath] = rest;
  }
  if (JSON.stringify(published) !== JSON.stringify(expected)) {
    problems.push(
      `${pkg.name}: package.json publishConfig.exports must be "exports" without the "${SOURCE_CONDITION}" condition, in the same order (expected ${JSON.stringify(expected)}, found ${JSON.stringify(published)}): it is what the published package.json gets`,
    );
  }
  return problems;
}
