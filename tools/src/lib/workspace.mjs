// @ts-check
/** Workspace facts the API tools share: where the root is, which packages are published. */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the monorepo root (the folder holding api-extractor.base.json). */
export const WORKSPACE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * @typedef {object} PackageInfo
 * @property {string} name        npm name, e.g. "@runledger/core"
 * @property {string} unscoped    name without scope, e.g. "core" (the report is api-reports/<unscoped>.api.md)
 * @property {string} dir         absolute package folder
 * @property {string} version     version in package.json
 * @property {Record<string, any>} json  the parsed package.json
 */

/**
 * Reads a package folder's package.json.
 * @param {string} dir
 * @returns {PackageInfo}
 */
export function readPackage(dir) {
  const json = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  return { name: json.name, unscoped: unscopedName(json.name), dir: path.resolve(dir), version: json.version, json };
}

/** @param {string} name */
export function unscopedName(name) {
  return name.startsWith('@') ? name.slice(name.indexOf('/') + 1) : name;
}

/**
 * Published packages: packages/* and apps/* that are not private and have an api-extractor.json
 * (the app and CLI, `@runledger/cli` in apps/ui, is one of them).
 * @param {string} [root]
 * @returns {PackageInfo[]}
 */
export function publishedPackages(root = WORKSPACE_ROOT) {
  return ['packages', 'apps']
    .map((group) => path.join(root, group))
    .filter((base) => existsSync(base))
    .flatMap((base) =>
      readdirSync(base, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => path.join(base, d.name)),
    )
    .filter((dir) => existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'api-extractor.json')))
    .map(readPackage)
    .filter((p) => !p.json.private)
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * All workspace packages by name (packages/*, apps/*, tools), used to find sibling packages.
 * @param {string} [root]
 * @returns {Map<string, PackageInfo>}
 */
export function workspacePackages(root = WORKSPACE_ROOT) {
  /** @type {Map<string, PackageInfo>} */
  const map = new Map();
  for (const group of ['packages', 'apps']) {
    const base = path.join(root, group);
    if (!existsSync(base)) continue;
    for (const d of readdirSync(base, { withFileTypes: true })) {
      const dir = path.join(base, d.name);
      if (d.isDirectory() && existsSync(path.join(dir, 'package.json'))) {
        const p = readPackage(dir);
        map.set(p.name, p);
      }
    }
  }
  return map;
}

/**
 * Names of the packages a package declares it may expose types from at runtime:
 * dependencies and peerDependencies.
 * @param {Record<string, any>} json
 */
export function runtimeDependencyNames(json) {
  return new Set([...Object.keys(json.dependencies ?? {}), ...Object.keys(json.peerDependencies ?? {})]);
}
