import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/**', '.data/**', 'node_modules/**', 'coverage/**', 'test/.tmp/**', '*.js', '*.mjs', '*.cjs', '.*.cjs', 'test/helpers/*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    // The web pages' scripts: plain browser modules, served as they are (no build, no type information).
    files: ['api/web/static/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, sourceType: 'module', globals: globals.browser },
  },
  {
    // Workflow code is replayed deterministically in a sandbox: no Node built-ins, no I/O libraries.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*', 'fs', 'path', 'crypto', 'http', 'https', 'net', 'os', 'child_process'], message: 'Workflows must not use Node built-ins.' },
            { group: ['sequelize', 'pg', '@sendgrid/*', 'jsonwebtoken', '**/db/**', '**/core/**', '**/runtime/**', '**/api/**', '**/activities/**', '**/adapters/**', '**/services/**'], message: 'Workflows import only contracts/ and the workflow SDK; the outside world is reached through activities.' },
          ],
        },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', disallowTypeAnnotations: false }],
    },
  },
);
