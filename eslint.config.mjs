// ESLint for the whole repository (`pnpm lint:code`, part of `pnpm test`): typescript-eslint's
// type-aware rules through the project service, so each file is checked with the tsconfig that
// builds it (packages/*/tsconfig.json, from tsconfig.base.json). Files no tsconfig includes (the
// benchmarks, tools/, the root config files) are checked in a default project with the base options.
// Formatting is prettier's job (.prettierrc.json), not ESLint's.
import tseslint from 'typescript-eslint';
import { defineConfig } from 'eslint/config';

export default defineConfig(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/temp/**',
      '**/coverage/**',
      '**/.turbo/**',
      'api-reports/**',
      '.changeset/**',
      'tools/test/fixtures/**',
      'packages/*/fixtures/**',
    ],
  },
  {
    files: ['**/*.ts', '**/*.mts', '**/*.mjs'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        projectService: {
          allowDefaultProject: [
            '*.mjs',
            '*.mts',
            'bench/*.mjs',
            'packages/*/bench/*.mjs',
            'apps/*/bench/*.mjs',
            'packages/*/src/testing/*.mjs',
            'apps/*/test/fixtures/*.mjs',
            'tools/ensure-test-env.mjs',
            'tools/vitest.config.mjs',
          ],
          defaultProject: 'tsconfig.eslint.json',
          maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 100,
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      // A promise nobody awaits loses its rejection: await it, or `void` it saying why.
      '@typescript-eslint/no-floating-promises': 'error',
      // A promise where a boolean or a void callback is expected is a bug (if (promise), onEvent(async …)).
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // Every case of a union is handled, or there is a default.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // `import type` for what is only a type (verbatimModuleSyntax keeps the other imports at run time).
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // `import { type A }` still loads the module under verbatimModuleSyntax: all-type imports are `import type { A }`.
      '@typescript-eslint/no-import-type-side-effects': 'error',
    },
  },
);
