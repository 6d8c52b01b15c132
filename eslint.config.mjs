import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Who may import whom (docs/architecture.md). Each room lists the rooms it must not import; the types of
// workflows stay importable everywhere (`import type`), their code only from workers/.
const ROOMS = ['api', 'app', 'lib', 'contracts', 'domain', 'workflows', 'activities', 'services', 'db', 'workers'];
const FORBIDDEN = {
  api: ['app', 'activities', 'workers'],
  services: ['api', 'app', 'activities', 'workers'],
  activities: ['api', 'app', 'workers'],
  db: ['api', 'app', 'services', 'activities', 'workers'],
  lib: ROOMS.filter((room) => room !== 'lib'),
  contracts: ['api', 'app', 'lib', 'workflows', 'activities', 'services', 'db', 'workers'],
  workers: ['api', 'app'],
};
const roomPattern = (rooms) => `^(\\.\\./)+(${rooms.join('|')})(/|$)`;
const boundaries = Object.entries(FORBIDDEN).map(([room, forbidden]) => ({
  files: [`${room}/**/*.ts`],
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          { regex: roomPattern(forbidden), message: `${room}/ may not import ${forbidden.join(', ')}` },
          ...(room === 'workers'
            ? []
            : [
                {
                  regex: roomPattern(['workflows']),
                  allowTypeImports: true,
                  message: `${room}/ may import workflows/ only with \`import type\``,
                },
              ]),
          ...(room === 'contracts'
            ? [
                {
                  regex:
                    '^(?!@temporalio/workflow$|@temporalio/common$|zod$|(\\.\\./)+domain/|\\./|\\.\\./(?!\\.\\./))',
                  message: 'contracts/ import only domain/, contracts/, zod and @temporalio/workflow',
                },
              ]
            : []),
        ],
      },
    ],
  },
}));

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'coverage/',
      '.data/',
      'bench-results/',
      'jest.config.js',
      'eslint.config.mjs',
      'test/support/summary-reporter.js',
      // Plain ESM run by node as a child process (oidc-provider is ESM-only); outside the TypeScript project.
      'test/support/oauth-provider-server.mjs',
      'packages/*/dist/',
      'packages/*/src/schema.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'no-console': ['error', { allow: ['error'] }],
      // Numbers in messages and keys are the common, harmless case; any, nullish and booleans stay refused.
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        {
          allowNumber: true,
          allowAny: false,
          allowBoolean: false,
          allowNever: false,
          allowNullish: false,
          allowRegExp: false,
        },
      ],
      // noUncheckedIndexedAccess is on: `!` after an index the code has just checked is the idiom.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // `(x) => void-call` arrow shorthands (callbacks, event handlers) are clear as written.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
    },
  },
  {
    // Workflows run in Temporal's deterministic sandbox: the SDK's workflow package, pure domain code,
    // their own folder, and only the types of activities.
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!@temporalio/workflow$|\\.\\./domain/|\\.\\./contracts/|\\./|\\.\\./activities/)',
              message:
                'workflows/ may import only @temporalio/workflow, domain/, contracts/ and the types of activities',
            },
            {
              group: ['../activities/*'],
              allowTypeImports: true,
              message: 'workflows/ may import activities only with `import type`',
            },
            {
              // The aggregates' zod schemas stay out of the workflow bundle.
              group: ['../contracts/aggregates/*'],
              allowTypeImports: true,
              message: 'workflows/ may import contracts/aggregates only with `import type`',
            },
          ],
        },
      ],
    },
  },
  {
    // contracts/ are shared by workflows and their clients: the samples' shared module, nothing with I/O;
    // contracts/aggregates/ hold each aggregate's one zod schema.
    files: ['contracts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!@temporalio/workflow$|zod$|(\\.\\./)+domain/|\\./|\\.\\./(?!\\.\\./))',
              message: 'contracts/ may import only @temporalio/workflow, zod, domain/ and contracts/',
            },
          ],
        },
      ],
    },
  },
  {
    // domain/ is pure: no I/O, no Node built-ins, nothing outside itself.
    files: ['domain/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        // domain/<aggregate>/x.ts reaches its siblings (./) and the other aggregates (../y/), never ../../.
        { patterns: [{ regex: '^(?!\\./|\\.\\./(?!\\.\\./))', message: 'domain/ imports nothing outside domain/' }] },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'Date', message: 'domain/ has no clock: take the time as an input' },
        'process',
        'setTimeout',
        'fetch',
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'domain/ has no randomness' },
      ],
    },
  },
  ...boundaries,
  {
    // Tests (and the history recorders run by hand) read `reply.body` (parsed JSON, typed any by test/support/http.ts)
    // no-unsafe-* and any in templates and sums would flag every such read.
    files: ['test/**/*.ts', 'scripts/histories/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        {
          allowNumber: true,
          allowAny: true,
          allowBoolean: false,
          allowNever: false,
          allowNullish: false,
          allowRegExp: false,
        },
      ],
      '@typescript-eslint/restrict-plus-operands': [
        'error',
        { allowAny: true, allowBoolean: false, allowNullish: false, allowNumberAndString: false, allowRegExp: false },
      ],
      // What beforeAll sets is typed as set; teardown's `stack?.stop()` still guards a setup that failed.
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // Stand-ins for activities and probes are async to keep the signature they replace (a throw rejects).
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Scripts are command-line programs: printing is their job.
    files: ['scripts/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
);
