/** Workspace facts the API tools share: where the root is, which packages are published. */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the monorepo root (the folder holding api-extractor.base.json). */
export const WORKSPACE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface PackageInfo {
  /** npm name, e.g. "@runledger/core" */
  name: string;
  /** name without scope, e.g. "core" (the report is api-reports/<unscoped>.api.md) */
  unscoped: string;
  /** absolute package folder */
  dir: string;
  /** version in package.json */
  version: string;
  /** the parsed package.json */
  json: Record<string, any>;
}

/**
 * Reads a package folder's package.json.
 */
export function readPackage(dir: string): PackageInfo {
  const json = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  return { name: json.name, unscoped: unscopedName(json.name), dir: path.resolve(dir), version: json.version, json };
}

export function unscopedName(name: string) {
  return name.startsWith('@') ? name.slice(name.indexOf('/') + 1) : name;
}

/**
 * Published packages: packages/* and apps/* that are not private and have an api-extractor.json
 * (the app and CLI, `@runledger/cli` in apps/cli, is one of them).
 */
export function publishedPackages(root: string = WORKSPACE_ROOT): PackageInfo[] {
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
 */
export function workspacePackages(root: string = WORKSPACE_ROOT): Map<string, PackageInfo> {
  const map: Map<string, PackageInfo> = new Map();
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
 */
export function runtimeDependencyNames(json: Record<string, any>) {
  return new Set([...Object.keys(json.dependencies ?? {}), ...Object.keys(json.peerDependencies ?? {})]);
}
