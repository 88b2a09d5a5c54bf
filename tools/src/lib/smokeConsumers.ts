/**
 * The consumer files of the pack smoke test (`pnpm api:pack`), written into a scratch project that
 * has the packed tarballs installed: one ESM consumer and one CommonJS consumer, each as a
 * JavaScript file Node runs and a TypeScript file tsc type-checks under module "nodenext".
 *
 * Each consumes every entry point of every package (the module specifiers it is given: a package's
 * main entry and its subpaths, e.g. `@runledger/trace/store`).
 *
 *   smoke.mjs  `import` of every package; prints each one's runtime exports
 *   smoke.cjs  `require()` of every package (require(esm), Node ≥ 20.19 / 22.12); fails unless
 *              each gives the very same exports as `import()` of it, and at least one
 *   smoke.mts  ESM TypeScript (one pair per type group: smoke.m|cts, smoke1.m|cts, …): `import * as` resolves every package's types, none is `any`
 *   smoke.cts  CommonJS TypeScript: `import x = require()` resolves the same types, none `any`
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** A module's typed namespace must not be `any` (what an unresolved or untyped import gives). */
const IS_ANY = 'type IsAny<T> = 0 extends 1 & T ? true : false;';

export interface TypeGroup {
  /** module specifiers (packages and their subpath entries) whose types are checked together */
  names: string[];
  /** the tsconfig `types` they are checked with ([] for a library, whose types must stand without Node's; ["node"] for a package whose signatures take Node's types) */
  types: string[];
}

/** One tsconfig the pack smoke runs tsc on, with the consumer files and packages it checks. */
export interface SmokeTypeCheck {
  config: string;
  files: string[];
  names: string[];
  types: string[];
}

/**
 * Writes the two JavaScript consumers (every package) and, per non-empty type group, an ESM and a
 * CommonJS TypeScript consumer with a tsconfig checking them.
 * @param project  the scratch project folder
 * @param groups  the packages to consume, by the types they are checked with
 */
export function writeSmokeConsumers(project: string, groups: TypeGroup[]): { esm: string; cjs: string; typeChecks: SmokeTypeCheck[] } {
  const write = (file: string, lines: string[]) => writeFileSync(path.join(project, file), `${lines.join('\n')}\n`);
  const names = groups.flatMap((g) => g.names);
  const list = JSON.stringify(names);

  write('smoke.mjs', [
    ...names.map((n, i) => `import * as m${i} from '${n}';`),
    `const mods = { ${names.map((n, i) => `'${n}': m${i}`).join(', ')} };`,
    `for (const [name, mod] of Object.entries(mods)) console.log('import  ' + name + ': ' + Object.keys(mod).length + ' runtime exports');`,
  ]);

  write('smoke.cjs', [
    `'use strict';`,
    `(async () => {`,
    `  for (const name of ${list}) {`,
    `    const required = require(name);`,
    `    const imported = await import(name);`,
    `    const keys = Object.keys(required);`,
    `    if (keys.length === 0) throw new Error(name + ': require() gave no exports');`,
    `    const importedKeys = Object.keys(imported);`,
    `    if (keys.join() !== importedKeys.join()) throw new Error(name + ': require() gives [' + keys.join() + '], import() gives [' + importedKeys.join() + ']');`,
    `    for (const k of keys) if (required[k] !== imported[k]) throw new Error(name + ': require().' + k + ' is not the same value as import().' + k);`,
    `    console.log('require ' + name + ': ' + keys.length + ' runtime exports, the same as import()');`,
    `  }`,
    `})().catch((e) => { console.error(e.stack ?? String(e)); process.exitCode = 1; });`,
  ]);

  const typeChecks: SmokeTypeCheck[] = [];
  for (const [g, group] of groups.entries()) {
    if (group.names.length === 0) continue;
    const stem = g === 0 ? 'smoke' : `smoke${g}`;
    const files: [string, string] = [`${stem}.mts`, `${stem}.cts`];
    write(files[0], [
      ...group.names.map((n, i) => `import * as m${i} from '${n}';`),
      IS_ANY,
      ...group.names.map((_, i) => `const typed${i}: IsAny<typeof m${i}> = false; void typed${i};`),
      `export {};`,
    ]);
    write(files[1], [
      ...group.names.map((n, i) => `import m${i} = require('${n}');`),
      IS_ANY,
      ...group.names.map((_, i) => `const typed${i}: IsAny<typeof m${i}> = false; void typed${i};`),
      `export {};`,
    ]);
    const config = g === 0 ? 'tsconfig.json' : `tsconfig.${g}.json`;
    writeFileSync(
      path.join(project, config),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: group.types,
        },
        files,
      }),
    );
    typeChecks.push({ config, files, names: group.names, types: group.types });
  }
  return { esm: 'smoke.mjs', cjs: 'smoke.cjs', typeChecks };
}
