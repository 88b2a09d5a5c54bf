// @ts-check
/**
 * The consumer files of the pack smoke test (`pnpm api:pack`), written into a scratch project that
 * has the packed tarballs installed: one ESM consumer and one CommonJS consumer, each as a
 * JavaScript file Node runs and a TypeScript file tsc type-checks under module "nodenext".
 *
 *   smoke.mjs  `import` of every package; prints each one's runtime exports
 *   smoke.cjs  `require()` of every package (require(esm), Node ≥ 20.19 / 22.12); fails unless
 *              each gives the very same exports as `import()` of it, and at least one
 *   smoke.mts  ESM TypeScript: `import * as` resolves every package's types, none is `any`
 *   smoke.cts  CommonJS TypeScript: `import x = require()` resolves the same types, none `any`
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** A module's typed namespace must not be `any` (what an unresolved or untyped import gives). */
const IS_ANY = 'type IsAny<T> = 0 extends 1 & T ? true : false;';

/**
 * Writes the four consumer files and a tsconfig.json checking the two TypeScript ones.
 * @param {string} project  the scratch project folder
 * @param {string[]} names  the package names to consume
 * @returns {{ esm: string, cjs: string }}  the JavaScript files to run with Node
 */
export function writeSmokeConsumers(project, names) {
  const write = (/** @type {string} */ file, /** @type {string[]} */ lines) => writeFileSync(path.join(project, file), `${lines.join('\n')}\n`);
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

  write('smoke.mts', [
    ...names.map((n, i) => `import * as m${i} from '${n}';`),
    IS_ANY,
    ...names.map((_, i) => `const typed${i}: IsAny<typeof m${i}> = false; void typed${i};`),
    `export {};`,
  ]);

  write('smoke.cts', [
    ...names.map((n, i) => `import m${i} = require('${n}');`),
    IS_ANY,
    ...names.map((_, i) => `const typed${i}: IsAny<typeof m${i}> = false; void typed${i};`),
    `export {};`,
  ]);

  writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: [] }, files: ['smoke.mts', 'smoke.cts'] }),
  );
  return { esm: 'smoke.mjs', cjs: 'smoke.cjs' };
}
