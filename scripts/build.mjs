// Bundles the CLI and the action entry into dist/ (committed; CI checks it matches src/).
import { chmod } from 'node:fs/promises';
import { build } from 'esbuild';

// Bundled CommonJS dependencies (pg, ...) call require(); give the ESM bundle one.
const requireShim =
  "import { createRequire as __pgperfCreateRequire } from 'node:module';\nconst require = __pgperfCreateRequire(import.meta.url);";

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
};

await build({
  ...common,
  entryPoints: ['src/cli.ts'],
  outfile: 'dist/cli.js',
  banner: { js: `#!/usr/bin/env node\n${requireShim}` },
});
await build({
  ...common,
  entryPoints: ['src/index.ts'],
  outfile: 'dist/index.js',
  banner: { js: requireShim },
});

// dist/cli.js is the package's bin; keep it runnable as ./dist/cli.js.
await chmod('dist/cli.js', 0o755);
