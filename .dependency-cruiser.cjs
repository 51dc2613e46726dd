/**
 * Import rules between the layers, checked by `npm test` (docs/architecture.md draws them):
 * no cycles anywhere; workflows import only contracts/ and the Temporal workflow SDK; contracts/ is the only
 * bridge between the API and the workflows; core/ and adapters/ know no database; core/ledger no I/O library;
 * the API reaches Temporal through api/workflow-client.ts alone; nothing imports the API;
 * models are db/repositories' and the database drivers db/'s alone (everything above db/ calls repository functions).
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', comment: 'An import cycle between files.', from: {}, to: { circular: true } },
    {
      name: 'workflows-import-contracts-and-sdk-only',
      severity: 'error',
      comment: 'Workflow code is replayed in a sandbox: it imports contracts/, other workflow files and the workflow SDK, nothing else.',
      from: { path: '^workflows/' },
      to: { pathNot: ['^workflows/', '^contracts/', '^node_modules/@temporalio/(workflow|common)/'] },
    },
    {
      name: 'contracts-stay-small',
      severity: 'error',
      comment: 'contracts/ is shared by the API, the workflows and the activities; it may lean on core/ only.',
      from: { path: '^contracts/' },
      to: { path: '^(api|workflows|activities|adapters|db|worker|services)/' },
    },
    {
      name: 'core-imports-no-db',
      severity: 'error',
      comment: 'core/ is plain domain code: no database, no HTTP layer, no workflows, no adapters, no runtime (config, logger).',
      from: { path: '^core/' },
      to: { path: '^(db|api|workflows|activities|adapters|worker|runtime|services)/' },
    },
    {
      name: 'core-reads-contracts-types-only',
      severity: 'error',
      comment: 'core/ may name the wire shapes generated from the OpenAPI document (contracts/openapi.ts), as types; nothing else of contracts/.',
      from: { path: '^core/' },
      to: { path: '^contracts/', pathNot: '^contracts/openapi\\.ts$' },
    },
    {
      name: 'core-ledger-imports-no-io',
      severity: 'error',
      comment:
        'The ledger\'s rules are pure: besides other pure core/ folders they use decimal.js and node:crypto\'s hashes, and the ' +
        'wire types; no file, network, database, logging or Temporal library.',
      from: { path: '^core/ledger/' },
      to: {
        pathNot: ['^core/(ledger|rates|shared)/', '^contracts/openapi\\.ts$', '^node_modules/decimal\\.js/', '^crypto$'],
      },
    },
    {
      name: 'core-domains-stay-apart',
      severity: 'error',
      comment:
        'A core/ domain folder imports core/shared/ and the domains it builds on (the ledger reads rates), never a sibling ' +
        'sideways: a new domain (invoices, bank, assets) builds on core/ledger, not the other way round.',
      from: { path: '^core/(ledger|rates|shared)/' },
      to: { path: '^core/(identity|organisation|audit|mail|notifications|webhooks)/' },
    },
    {
      name: 'runtime-reads-core-only',
      severity: 'error',
      comment: 'runtime/ (config from the environment, the logger) is read by every layer; it imports only core/.',
      from: { path: '^runtime/' },
      to: { path: '^(db|api|workflows|activities|adapters|worker|contracts|services)/' },
    },
    {
      name: 'one-door-to-temporal',
      severity: 'error',
      comment:
        'In the API, only api/workflow-client.ts talks to Temporal (the SDK client and adapters/temporal): starts, results, ' +
        'updates, the rates Schedule trigger and the readiness check. Elsewhere the client is a type that is passed in.',
      from: { path: '^api/', pathNot: '^api/workflow-client\\.ts$' },
      to: { path: ['^node_modules/@temporalio/', '^adapters/temporal/'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'adapters-import-no-db',
      severity: 'error',
      comment: 'Adapters implement ports from core/; what they need from storage is injected.',
      from: { path: '^adapters/' },
      to: { path: '^(db|api|workflows|activities|worker|services)/' },
    },
    {
      name: 'db-imports-no-upper-layers',
      severity: 'error',
      comment: 'The data layer serves the API and the activities; it never calls them.',
      from: { path: '^db/' },
      to: { path: '^(api|workflows|activities|adapters|worker|services)/' },
    },
    {
      name: 'services-serve-api-and-activities',
      severity: 'error',
      comment:
        'services/ holds the changes the API and the activities both make inside a transaction (the posting path, a payment, ' +
        'a bank line\'s match): it builds on core/, db/, contracts/ and runtime/, and knows neither HTTP nor Temporal.',
      from: { path: '^services/' },
      to: { path: ['^(api|workflows|activities|worker|adapters)/', '^node_modules/(express|@temporalio)/'] },
    },
    {
      name: 'models-only-in-repositories',
      severity: 'error',
      comment:
        'Model calls live in db/repositories (db/open.ts binds the models at start-up); everything above db/ calls repository ' +
        'functions. Tests set up and inspect data through repositories or their own owner/superuser connection, never a model.',
      from: { pathNot: ['^db/models/', '^db/repositories/', '^db/open\\.ts$'] },
      to: { path: '^db/models/' },
    },
    {
      name: 'database-drivers-only-in-db',
      severity: 'error',
      comment:
        'Only db/ talks to Sequelize and pg. Above it the pool is a dependency: `import type { Sequelize }` names its type and ' +
        'sends nothing (type-only imports are allowed). test/ and bench/ query the fixtures they set up through their own connections.',
      from: { pathNot: '^(db|test|bench)/' },
      to: { path: '^node_modules/(sequelize|pg)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'activities-import-no-workflows-or-api',
      severity: 'error',
      comment: 'Activities meet workflows only through contracts/.',
      from: { path: '^activities/' },
      to: { path: '^(workflows|api|worker)/' },
    },
    {
      name: 'api-imports-no-workflows-or-activities',
      severity: 'error',
      comment: 'The API starts workflows by name with their contracts; it never loads workflow or activity code.',
      from: { path: '^api/' },
      to: { path: '^(workflows|activities|worker)/' },
    },
  ],
  options: {
    // Packages are not followed, but stay in the graph: the rules above check which packages a file imports.
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|coverage)/' },
    // Type-only imports count too: a cycle through types is still a cycle for a reader.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
