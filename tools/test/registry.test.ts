import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { publishRegistry } from '../src/lib/registry.ts';
import { cleanEnv } from './commands.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function project(npmrc?: string): string {
  dir = mkdtempSync(path.join(os.tmpdir(), 'runledger-registry-'));
  writeFileSync(path.join(dir, 'package.json'), '{"name":"x","private":true}\n');
  if (npmrc !== undefined) writeFileSync(path.join(dir, '.npmrc'), npmrc);
  return dir;
}

describe('publishRegistry: the registry of the normal npm config', () => {
  it("takes the scope's line of the project's .npmrc over the default registry", () => {
    const root = project('@runledger:registry=http://127.0.0.1:4873/\nregistry=http://127.0.0.1:9/\n');
    expect(publishRegistry({ scope: '@runledger', root, env: cleanEnv() })).toEqual({
      url: 'http://127.0.0.1:4873/',
      envName: 'npm_config_@runledger:registry',
      from: 'npm config @runledger:registry',
    });
  });

  it('falls back to the default registry (--registry / npm_config_registry) when the scope has none', () => {
    const root = project('@other:registry=http://127.0.0.1:4873/\n');
    expect(publishRegistry({ scope: '@runledger', root, env: cleanEnv({ npm_config_registry: 'http://127.0.0.1:5555/' }) })).toEqual({
      url: 'http://127.0.0.1:5555/',
      envName: 'npm_config_registry',
      from: 'npm config registry',
    });
  });
});
