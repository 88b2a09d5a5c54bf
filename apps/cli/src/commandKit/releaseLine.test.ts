import { describe, expect, it } from 'vitest';
import { assertStorePostgresLine } from './loadPostgresStore.js';
import { releaseLine } from './releaseLine.js';
import { CliSetupError } from './CliSetupError.js';

describe('releaseLine', () => {
  it('is major.minor below 1.0 and major from 1.0 on', () => {
    expect(['0.1.0', '0.1.7', '0.2.0', '1.0.0', '1.4.2', '2.0.0-rc.1', '0.10.3+build'].map(releaseLine)).toEqual([
      '0.1',
      '0.1',
      '0.2',
      '1',
      '1',
      '2',
      '0.10',
    ]);
  });
  it('refuses what is not major.minor.patch, naming the value', () => {
    expect(() => releaseLine('1.2')).toThrow('releaseLine: version must be major.minor.patch, got "1.2"');
  });
});

describe('assertStorePostgresLine', () => {
  it('accepts the same line (a patch, or a minor from 1.0 on)', () => {
    expect(() => assertStorePostgresLine('0.1.9', '0.1.0')).not.toThrow();
    expect(() => assertStorePostgresLine('1.3.0', '1.0.2')).not.toThrow();
  });
  it('refuses another line: a 0.x minor, a major; naming both versions and the npm command', () => {
    expect(() => assertStorePostgresLine('0.2.0', '0.1.0')).toThrow(CliSetupError);
    expect(() => assertStorePostgresLine('0.2.0', '0.1.0')).toThrow(
      '@runledger/cli was built against @runledger/store-postgres 0.1.0 (release line 0.1), but 0.2.0 (release line 0.2) is installed, which may not work with it; install the matching line next to @runledger/cli (npm i -D @runledger/store-postgres@0.1)',
    );
    expect(() => assertStorePostgresLine('2.0.0', '1.5.0')).toThrow('npm i -D @runledger/store-postgres@1)');
  });
});
