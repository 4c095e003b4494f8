// The TypeScript linter behind `npm run lint:ts`, the first step of `npm run lint` (then the
// dpdm cycle check, rustfmt and clippy; see package.json).
//
// Why these rules and not a preset: strict tsc already catches type errors, unused locals
// aside. What it cannot see are the bugs that type-check: a promise nobody awaits or catches
// (a rejection that kills the host, or an exporter flush that silently never finishes), a
// promise passed where a callback's result is ignored, `any` leaking in and turning checks
// off, dead code. Each rule below is named explicitly so that whoever re-runs this over a
// changed tree knows exactly what "no findings" means; each one has caught or would
// catch a real bug, none is about style (the codebase has no formatter rule, on purpose).
//
// Type-aware rules read the project through tsconfig.json (projectService). A whole run over
// src/, __test__/, scripts/, bench/, examples/ and esm/ takes about 8 s on an idle 2-core
// machine, most of it building the program once; `--cache` is not used because CI starts from
// a clean clone anyway, and it must pass there, before any build (see the consumer fixtures).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The rules that catch real bugs in TypeScript that compiles. */
const typeAwareRules = {
  // Promises: every one is awaited, returned, caught or explicitly `void`ed.
  '@typescript-eslint/no-floating-promises': 'error',
  // A promise where a boolean or a void callback is expected (an `if (promise)`, an async
  // function given to `process.on` or `setTimeout` whose rejection nobody handles).
  '@typescript-eslint/no-misused-promises': 'error',
  '@typescript-eslint/await-thenable': 'error',
  // `return promise` inside try/catch skips the catch; `return await` there is required.
  '@typescript-eslint/return-await': ['error', 'in-try-catch'],
  // RegistryError is the twin's internal Result: thrown and caught within src/backends/js
  // (state.ts `change`), never seen by a caller; everything else thrown is an Error.
  '@typescript-eslint/only-throw-error': [
    'error',
    { allow: [{ from: 'file', name: 'RegistryError', path: 'src/backends/js/registry.ts' }] },
  ],
  '@typescript-eslint/prefer-promise-reject-errors': 'error',
  // Accidental `any`: written (no-explicit-any) or flowing in from JSON.parse, catch
  // variables and untyped modules (the no-unsafe-* family).
  '@typescript-eslint/no-explicit-any': 'error',
  '@typescript-eslint/no-unsafe-argument': 'error',
  '@typescript-eslint/no-unsafe-assignment': 'error',
  '@typescript-eslint/no-unsafe-call': 'error',
  '@typescript-eslint/no-unsafe-member-access': 'error',
  '@typescript-eslint/no-unsafe-return': 'error',
  // Unused code: imports, locals, parameters after the last used one, caught errors that
  // are bound but never read. A leading underscore marks a deliberately unused name.
  '@typescript-eslint/no-unused-vars': [
    'error',
    { args: 'after-used', argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'all', caughtErrorsIgnorePattern: '^_' },
  ],
  '@typescript-eslint/no-unused-expressions': 'error',
  // "[object Object]" in a message or an attribute.
  '@typescript-eslint/no-base-to-string': 'error',
  // A switch over a union that forgets a member.
  '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
};

/** Plain JavaScript bugs (also applied to the .cjs/.mjs consumer fixtures, which have no types). */
const javascriptRules = {
  ...js.configs.recommended.rules,
  'no-self-compare': 'error',
  'no-template-curly-in-string': 'error',
  'no-unmodified-loop-condition': 'error',
  'no-unreachable-loop': 'error',
  'no-constructor-return': 'error',
  // Style, not bugs: `/"  "/` reads better than `/" {2}"/` in a test of two-space names.
  'no-regex-spaces': 'off',
};

export default tseslint.config(
  {
    // Build outputs and generated files (esm/ is hand-written and is linted as JavaScript).
    ignores: ['dist/**', 'target/**', 'native/**', 'npm/**', 'pack/**', 'node_modules/**', 'fuzz/**', 'crates/**', '**/*.d.ts', '**/*.d.mts', '**/*.d.cts'],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error', reportUnusedInlineConfigs: 'error' },
  },
  {
    files: ['**/*.{js,cjs,mjs}'],
    languageOptions: {
      ecmaVersion: 2024,
      // Node's globals that the hand-written JavaScript (esm/, the consumer fixtures) uses.
      globals: Object.fromEntries(
        ['require', 'module', 'exports', '__dirname', 'process', 'console', 'globalThis', 'setTimeout', 'clearTimeout', 'Buffer', 'URL'].map((name) => [
          name,
          'readonly',
        ]),
      ),
    },
    rules: javascriptRules,
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
  {
    files: ['**/*.{ts,mts,cts}'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      ...javascriptRules,
      // tsc checks these better (and knows the globals and overloads).
      'no-undef': 'off',
      'no-redeclare': 'off',
      'no-dupe-class-members': 'off',
      'no-unused-vars': 'off',
      'no-unused-expressions': 'off',
      ...typeAwareRules,
    },
  },
  {
    // The consumer fixtures import 'nemo-lens' as an installed package: scripts/package-test.ts
    // compiles and runs them against the packed tarball. Here that import would resolve to this
    // checkout's build outputs, absent from a clean clone, so they get the rules that need no
    // types only.
    files: ['scripts/packaging/consumer/**'],
    ...tseslint.configs.disableTypeChecked,
  },
);
