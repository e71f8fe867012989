// Lint rules that catch bugs (promises nobody awaits, values nobody uses, imports across layers);
// formatting is Prettier's job (eslint-config-prettier turns the overlapping rules off).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import vue from 'eslint-plugin-vue';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import boundaries from 'eslint-plugin-boundaries';

const typeAware = {
  '@typescript-eslint/no-floating-promises': 'error',
  '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
  '@typescript-eslint/await-thenable': 'error',
  '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
};

/**
 * The layers of docs/architecture.md, lowest first: a file may import from its own layer and the ones
 * before it in this table, never from one after it. The renderer sees only shared; the preload only
 * shared (and electron, below).
 */
const LAYERS = [
  ['shared', ['src/shared/**']],
  [
    'infrastructure',
    [
      'src/core/runtime.ts',
      'src/core/sqlite.ts',
      'src/core/config.ts',
      'src/core/fs/**',
      'src/core/workers/**',
      'src/core/jobs/**',
      'src/core/cache/**',
      'src/core/collections/**',
    ],
  ],
  ['storage', ['src/core/dataset/**', 'src/core/generate/**', 'src/core/appState/**', 'src/core/keys/**', 'src/core/datasets/**']],
  ['audience contract', ['src/core/audience/contract/**']],
  ['engines', ['src/core/query/**', 'src/core/clickhouse/**']],
  [
    'audience',
    ['src/core/audience/**', 'src/core/lists/**', 'src/core/match/**', 'src/core/optouts/**', 'src/core/export/**', 'src/core/import/**'],
  ],
  [
    'composition',
    ['src/core/activeEngine.ts', 'src/core/createCore.ts', 'src/core/dataSource/**', 'src/core/handlers/**', 'src/server/**'],
  ],
  ['entry', ['src/cli/**', 'src/main/**']],
];
// Patterns name files as well as folders (src/core/createCore.ts is composition, src/core/sqlite.ts
// infrastructure), which eslint-plugin-boundaries 7 still reads in its `mode: 'full'` (pinned; it warns
// that the mode is deprecated, hence 'boundaries/legacy-warnings' off). The first pattern that
// matches decides, so src/core/audience/contract/ is the contract, the rest of audience/ the service.
const layerElements = [
  ...LAYERS.flatMap(([type, patterns]) => patterns.map((pattern) => ({ type, pattern, mode: 'full' }))),
  { type: 'renderer', pattern: 'src/renderer/**', mode: 'full' },
  { type: 'preload', pattern: 'src/preload/**', mode: 'full' },
];
const may = (type, types) => ({ from: { element: { type } }, allow: { to: { element: { types: { anyOf: types } } } } });
const layerPolicies = [
  ...LAYERS.map(([type], i) =>
    may(
      type,
      LAYERS.slice(0, i + 1).map(([lower]) => lower),
    ),
  ),
  may('renderer', ['shared', 'renderer']),
  may('preload', ['shared', 'preload']),
];

/** Layers (docs/architecture.md): the engine and its transports never load Electron; shared code loads neither Node nor DOM. */
const noElectron = { paths: [{ name: 'electron', message: 'Only src/main and src/preload may import electron.' }] };
const nodeBuiltins = { patterns: [{ group: ['node:*'], message: 'Shared and renderer code runs in the browser too.' }] };

export default tseslint.config(
  { ignores: ['node_modules/', 'out/', 'dist/', 'resources/', 'bench/data/', 'test-artifacts/', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...vue.configs['flat/recommended'],
  {
    files: ['**/*.ts', '**/*.vue'],
    languageOptions: {
      parserOptions: {
        parser: tseslint.parser,
        project: ['./tsconfig.node.json', './tsconfig.web.json'],
        tsconfigRootDir: import.meta.dirname,
        extraFileExtensions: ['.vue'],
      },
      globals: { ...globals.node },
    },
    rules: typeAware,
  },
  {
    files: ['src/renderer/**/*', 'test/renderer/**/*'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.vue'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': layerElements,
      'boundaries/legacy-warnings': false,
      'import/resolver': { node: { extensions: ['.ts', '.vue', '.js'] } },
    },
    rules: { 'boundaries/dependencies': ['error', { default: 'disallow', policies: layerPolicies }] },
  },
  { files: ['src/core/**/*', 'src/server/**/*', 'src/cli/**/*'], rules: { 'no-restricted-imports': ['error', noElectron] } },
  { files: ['src/shared/**/*', 'src/renderer/**/*'], rules: { 'no-restricted-imports': ['error', { ...noElectron, ...nodeBuiltins }] } },
  {
    // Tests reach into fakes and untyped answers; an `any` there hides no product bug.
    files: ['test/**/*', 'bench/**/*'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Plain JavaScript config files are not part of either TypeScript project.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  prettier,
);
