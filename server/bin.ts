import { setFlagsFromString } from 'node:v8';
import { runGateway } from './run.ts';

/**
 * `wpwl-gateway`, the command of the installed package (package.json `bin`; compiled to dist/server/bin.js by
 * `npm run build`, server/compile.ts): the gateway itself as the process node runs — no npm, shell or compiler in
 * between — so a signal reaches it and drains it.
 *
 *   wpwl-gateway --ci            the gateway for a CI pipeline's tests: in memory, test environment (alias --in-memory)
 *   wpwl-gateway start           the gateway with the environment's configuration (DATA_DIR, DATABASE_URL, ... : docs)
 *   wpwl-gateway <command> ...   the command line (entity, payments, settlement, operator, ...), as `npm run gateway --`
 *                                runs it in a checkout
 */

const USAGE = `usage: wpwl-gateway --ci | start | <command> [...]
  --ci, --in-memory   start the gateway for tests: in memory, nothing kept, with the control API (/test/v1)
                      (PORT, PUBLIC_URL, ADMIN_TOKEN, DEMO_ENTITY_ID, DEMO_ACCESS_TOKEN, TEST_CONTROL_API=false...)
  start               start the gateway with the environment's configuration (docs/operating.md)
  <command>           the command line: entity, token, credentials, payments, settlement, operator, user, keys, ... (--help)
`;

const [first, ...rest] = process.argv.slice(2);
if (first === '--ci' || first === '--in-memory') {
  // The embedded database's WebAssembly compiled by V8's baseline compiler only: its optimizing tier spent about a
  // CPU-second of a CI start in background threads, for no faster payments in a test's load (bench section S).
  setFlagsFromString('--liftoff-only');
  runGateway({ inMemory: true, cli: 'npx wpwl-gateway' });
} else if (first === 'start') {
  runGateway({ inMemory: false, cli: 'npx wpwl-gateway' });
} else if (first === undefined || first === '--help' || first === '-h') {
  process.stdout.write(USAGE);
  process.exitCode = first === undefined ? 1 : 0;
} else {
  const { runCli } = await import('./cli/index.ts');
  const result = await runCli([first, ...rest], { env: process.env, progress: (line) => process.stdout.write(`${line}\n`) }).catch((error: unknown) => ({
    exitCode: 1,
    stdout: '',
    stderr: `${error instanceof Error ? error.message : String(error)}\n`,
  }));
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  process.exitCode = result.exitCode;
}
