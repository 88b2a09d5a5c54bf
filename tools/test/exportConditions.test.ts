import { describe, expect, it } from 'vitest';
import { exportConditionProblems, publishedExportsProblems } from '../src/lib/exportConditions.ts';

const pkg = (exports: unknown) => ({ name: '@fx/conditions', json: { name: '@fx/conditions', type: 'module', exports } });

describe('exports conditions: "types" first, "default" last, so require() resolves', () => {
  it('types, import, default (the same file) and ./package.json pass', () => {
    expect(
      exportConditionProblems(
        pkg({
          '.': { types: './dist/index.d.ts', import: './dist/index.js', default: './dist/index.js' },
          './package.json': './package.json',
        }),
      ),
    ).toEqual([]);
  });

  it('without "default", require() of the package fails: the problem names the field and the rule', () => {
    const problems = exportConditionProblems(pkg({ '.': { types: './dist/index.d.ts', import: './dist/index.js' } }));
    expect(problems).toEqual([
      `@fx/conditions: package.json exports["."] has no "default" condition: require('@fx/conditions') fails with ERR_PACKAGE_PATH_NOT_EXPORTED (add "default" after "import", the same file)`,
    ]);
  });

  it('a subpath without "default" names the subpath in require()', () => {
    const problems = exportConditionProblems(
      pkg({ '.': { types: './a.d.ts', default: './a.js' }, './testing': { types: './t.d.ts', import: './t.js' } }),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/exports\["\.\/testing"\] has no "default" condition: require\('@fx\/conditions\/testing'\)/);
  });

  it('"default" before another condition, "types" not first, or default and import on different files fail', () => {
    expect(exportConditionProblems(pkg({ '.': { types: './a.d.ts', default: './a.js', import: './a.js' } }))).toEqual([
      '@fx/conditions: package.json exports["."] must list "default" last: the conditions after it are never reached',
    ]);
    expect(exportConditionProblems(pkg({ '.': { import: './a.js', types: './a.d.ts', default: './a.js' } }))[0]).toMatch(
      /must list "types" first \(found "import", "types", "default"\)/,
    );
    expect(exportConditionProblems(pkg({ '.': { types: './a.d.ts', import: './a.mjs', default: './a.cjs' } }))[0]).toMatch(
      /default is \.\/a\.cjs but \.import is \.\/a\.mjs/,
    );
  });

  it('a package without an exports object fails', () => {
    expect(exportConditionProblems(pkg(undefined))).toEqual([
      '@fx/conditions: package.json "exports" must be an object of subpaths (".": { "types", "import", "default" })',
    ]);
    expect(exportConditionProblems(pkg('./dist/index.js'))).toHaveLength(1);
  });
});

describe('published exports: publishConfig.exports is exports without the source condition', () => {
  const withSource = {
    '.': { types: './dist/index.d.ts', '@runledger/source': './src/index.ts', import: './dist/index.js', default: './dist/index.js' },
    './package.json': './package.json',
  };
  const published = {
    '.': { types: './dist/index.d.ts', import: './dist/index.js', default: './dist/index.js' },
    './package.json': './package.json',
  };
  const pkgWith = (exports: unknown, publishedExports: unknown) => ({
    name: '@fx/published',
    json: { name: '@fx/published', exports, publishConfig: { access: 'restricted', exports: publishedExports } },
  });

  it('the same subpaths and targets, less the condition, pass', () => {
    expect(publishedExportsProblems(pkgWith(withSource, published))).toEqual([]);
  });

  it('a subpath added to exports only, or a target that differs, is named', () => {
    const more = {
      ...withSource,
      './store': { types: './dist/store/index.d.ts', '@runledger/source': './src/store/index.ts', default: './dist/store/index.js' },
    };
    expect(publishedExportsProblems(pkgWith(more, published))).toEqual([
      expect.stringMatching(
        /^@fx\/published: package\.json publishConfig\.exports must be "exports" without the "@runledger\/source" condition/,
      ),
    ]);
    const other = { ...published, '.': { ...published['.'], default: './dist/other.js' } };
    expect(publishedExportsProblems(pkgWith(withSource, other))).toHaveLength(1);
    expect(publishedExportsProblems(pkgWith(withSource, undefined))).toHaveLength(1);
  });

  it('a subpath without its source, or with a source outside src/, is named', () => {
    const noSource = { '.': published['.'], './package.json': './package.json' };
    expect(publishedExportsProblems(pkgWith(noSource, published))).toEqual([
      expect.stringContaining('exports["."]["@runledger/source"] must name the entry\'s TypeScript source'),
    ]);
    const distSource = { ...withSource, '.': { ...withSource['.'], '@runledger/source': './dist/index.js' } };
    expect(publishedExportsProblems(pkgWith(distSource, published))).toHaveLength(1);
  });
});
