// Lint rules that catch bugs (promises nobody awaits, values nobody uses, imports across layers);
// formatting is Prettier's job (eslint-config-prettier turns the overlapping rules off).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import vue from 'eslint-plugin-vue';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

const typeAware = {
  '@typescript-eslint/no-floating-promises': 'error',
  '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
  '@typescript-eslint/await-thenable': 'error',
  '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
};

/** Layers (ARCHITECTURE.md): the engine and its transports never load Electron; shared code loads neither Node nor DOM. */
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
