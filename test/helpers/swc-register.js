// Lets a child process run the TypeScript sources directly (node -r ./test/helpers/swc-register.js worker/main.ts),
// compiled on the fly by the same SWC the tests use: for tests that must kill a real worker process, and for the
// API's XLSX threads when the API itself runs from the sources, as in the tests (api/http/xlsx-threads.ts).
const { transformSync } = require('@swc/core');
const fs = require('node:fs');

require.extensions['.ts'] = function compile(module, filename) {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};
