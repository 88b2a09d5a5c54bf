// ESLint for the whole repository (`pnpm lint:code`, part of `pnpm test`): typescript-eslint's
// type-aware rules through the project service, so each file is checked with the tsconfig that
// builds it (packages/*/tsconfig.json, from tsconfig.base.json). Files no tsconfig includes (the
// benchmarks, tools/, the root config files) are checked in a default project with the base options.
// Formatting is prettier's job (.prettierrc.json), not ESLint's. Run-time import cycles and file
// names are checked by tools/src/lint-sources.ts, the next step of `pnpm lint:code`.
import tseslint from 'typescript-eslint';
import { defineConfig } from 'eslint/config';

/** Product code: what a package ships and the CLI runs (not tests, test helpers, fixtures or the contract suite). */
const PRODUCT_CODE = ['packages/*/src/**/*.{ts,mts,mjs}', 'apps/*/src/**/*.{ts,mts,mjs}'];
const NOT_PRODUCT_CODE = ['**/*.test.ts', '**/*.test-d.ts', '**/testing/**', 'packages/store-contract/**'];

/** The MCP SDK has one door, packages/mcp/src/sdk.ts (docs/architecture.md, "a transport"). */
const MCP_SDK = {
  regex: '^@modelcontextprotocol/',
  message: 'The MCP SDK is imported only by packages/mcp/src/sdk.ts, its one door (and the transport files only sdk.ts imports).',
};
/** The demo servers are MCP servers: they may use the SDK's server side, never its client. */
const MCP_SDK_CLIENT = {
  regex: '^@modelcontextprotocol/(client|node|sdk)(/|$)',
  message: 'The MCP client is reached only through @runledger/mcp (packages/mcp/src/sdk.ts is its one door).',
};
/** Testing code: testing/ folders (and `@runledger/<pkg>/testing`), test helpers under test/, the contract suite, test libraries. */
const TESTING_CODE = {
  regex: '(^|/)testing(/|$)|^\\.{1,2}/(.*/)?test/|^@runledger/store-contract(/|$)|^vitest(/|$)|^fast-check$',
  message: 'Product code never imports testing code (testing/, test helpers, the contract suite, vitest, fast-check).',
};
/** The app and the CLI use runs as a user of a store does: @runledger/trace/store is for store implementers (docs/architecture.md). */
const TRACE_STORE_ENTRY = {
  regex: '^@runledger/trace/store$',
  message: "The app and the CLI import from @runledger/trace, never from @runledger/trace/store (the store implementers' entry).",
};
const restrictImports = (...patterns) => ['error', { patterns }];

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
            'tools/link-cli-bin.mjs',
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
      // What is declared is used (as tsconfig's noUnusedLocals/noUnusedParameters, and in .mjs too): a
      // parameter a signature needs but the body does not is `_name`, as is a `for (const _ of rows)`.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrors: 'all',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      'no-restricted-imports': restrictImports(MCP_SDK),
    },
  },
  {
    files: PRODUCT_CODE,
    ignores: NOT_PRODUCT_CODE,
    rules: { 'no-restricted-imports': restrictImports(MCP_SDK, TESTING_CODE) },
  },
  {
    files: ['apps/*/src/**/*.{ts,mts,mjs}'],
    ignores: NOT_PRODUCT_CODE,
    rules: { 'no-restricted-imports': restrictImports(MCP_SDK, TESTING_CODE, TRACE_STORE_ENTRY) },
  },
  {
    // the door, and the transport beside it that only sdk.ts imports
    files: ['packages/mcp/src/sdk.ts', 'packages/mcp/src/trackedHttpTransport.ts'],
    rules: { 'no-restricted-imports': restrictImports(TESTING_CODE) },
  },
  {
    // the demo's bundled MCP servers
    files: ['apps/cli/src/demo/**'],
    rules: { 'no-restricted-imports': restrictImports(MCP_SDK_CLIENT, TESTING_CODE, TRACE_STORE_ENTRY) },
  },
  {
    // @runledger/mcp's own tests and fixtures talk to the SDK directly (in-memory transports, fixture
    // servers), and the benchmarks measure runledger against the bare SDK client
    files: ['packages/mcp/src/**/*.test.ts', 'packages/mcp/src/testing/**', '**/bench/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
