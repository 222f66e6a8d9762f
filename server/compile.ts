import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { packagePath } from './paths.ts';

/**
 * `npm run build`'s last step: what the installed package runs, compiled to JavaScript — the gateway (dist/server/),
 * for the `wpwl-gateway` command (bin.ts), started by node alone with nothing compiled at start; and the Playwright
 * helpers a shop's tests import (`payment-gateway/playwright`: dist/ci/, with their declarations). One module per
 * entry and a chunk per dynamic import (the gateway's modules load while the in-memory store opens: run.ts); the
 * packages stay imports (npm installs them beside it). Files the server reads at run time are found from the
 * package's root (paths.ts), wherever this output lives.
 */

const OUT_DIRS = ['dist/server/', 'dist/ci/'] as const;

export async function compileServer(): Promise<string> {
  for (const dir of OUT_DIRS) rmSync(packagePath(dir), { recursive: true, force: true });
  await build({
    entryPoints: {
      'server/bin': packagePath('server/bin.ts').pathname,
      'ci/playwright': packagePath('ci/playwright.ts').pathname,
      'ci/fixture': packagePath('ci/fixture.ts').pathname,
    },
    outdir: packagePath('dist/').pathname,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    packages: 'external',
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    // The command's shebang (bin.js); harmless at the top of the helpers' modules.
    banner: { js: '#!/usr/bin/env node' },
    chunkNames: 'server/chunks/[name]-[hash]',
  });
  // The helpers' and the fixtures' types, for a shop's tests in TypeScript (dist/ci/*.d.ts).
  execFileSync(
    process.execPath,
    [
      packagePath('node_modules/typescript/bin/tsc').pathname,
      '--declaration', '--emitDeclarationOnly', '--skipLibCheck', '--strict', '--target', 'ES2022', '--module', 'ESNext',
      '--moduleResolution', 'Bundler', '--types', 'node', '--allowImportingTsExtensions', '--rewriteRelativeImportExtensions',
      '--rootDir', packagePath('.').pathname, '--outDir', packagePath('dist/').pathname,
      packagePath('ci/playwright.ts').pathname, packagePath('ci/fixture.ts').pathname,
    ],
    { stdio: 'inherit' },
  );
  // tsc keeps the sources' `.ts` specifiers in declarations; the package has .js beside .d.ts.
  const fixtureTypes = packagePath('dist/ci/fixture.d.ts');
  writeFileSync(fixtureTypes, readFileSync(fixtureTypes, 'utf8').replaceAll("from './playwright.ts'", "from './playwright.js'"));
  // Emitted beside them for the fixture's import of it, and no use to anyone: the fixture's module holds it compiled.
  rmSync(packagePath('dist/server/paths.d.ts'), { force: true });
  return packagePath('dist/server/bin.js').pathname;
}

// `npm run build` (after the widget, the dashboard and the store image): tsx server/compile.ts
if (process.argv[1] && /server[\\/]compile\.ts$/.test(process.argv[1])) {
  compileServer().then(
    (path) => process.stdout.write(`server ${path}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
