import { createRequire as __pgperfCreateRequire } from 'node:module';
const require = __pgperfCreateRequire(import.meta.url);

// src/util/errors.ts
var UserError = class extends Error {
  constructor(message) {
    super(message);
    this.name = "UserError";
  }
};

// src/action.ts
async function run() {
  const message = new UserError(
    "the pgperf GitHub Action is not implemented yet; use the pgperf CLI (see README.md)"
  ).message;
  process.stdout.write(`::error::${message}
`);
  process.exitCode = 1;
}

// src/index.ts
await run();
