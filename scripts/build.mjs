// Bundles the CLI and the action entry into dist/ (committed; CI checks it matches src/).
import { chmod, readFile } from 'node:fs/promises';
import { build } from 'esbuild';

// Bundled CommonJS dependencies (pg, ...) call require(); give the ESM bundle one.
const requireShim =
  "import { createRequire as __pgperfCreateRequire } from 'node:module';\nconst require = __pgperfCreateRequire(import.meta.url);";

// The history page inlines uPlot; in the bundle its files are embedded, so dist/ needs no node_modules.
const embedChartAssets = {
  name: 'embed-chart-assets',
  setup(b) {
    b.onLoad({ filter: /src[\\/]flows[\\/]history[\\/]uplot-assets\.ts$/ }, async () => {
      const script = await readFile('node_modules/uplot/dist/uPlot.iife.min.js', 'utf8');
      const css = await readFile('node_modules/uplot/dist/uPlot.min.css', 'utf8');
      return {
        loader: 'ts',
        contents: `export async function loadChartAssets() { return { script: ${JSON.stringify(script)}, css: ${JSON.stringify(css)} }; }`,
      };
    });
  },
};

const common = {
  plugins: [embedChartAssets],
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
