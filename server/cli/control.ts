import type { CliResult } from './command.ts';

/**
 * The test-only control API from the command line (issue 36), for a CI job's shell steps: `trigger`, `sent` and
 * `clock` call the running gateway's /test/v1 (TEST_CONTROL_API=true; `wpwl-gateway --ci` has it) at GATEWAY_URL, or
 * its PORT on 127.0.0.1. No store is opened and no admin token is needed: the control API is the test gateway's own
 * door, as the Playwright fixture uses it. The answer is printed as the gateway gives it (JSON); a refusal exits 1.
 */

export const CONTROL_USAGE = `  trigger <name> [--<parameter> <value>]...   make an event happen now (test gateway, TEST_CONTROL_API=true):
                                               chargeback --paymentId ID [--amount 10.00] [--reasonCode 000.100.203],
                                               chargeback-reversal --chargebackId ID, async-approval|async-decline|
                                               async-expiry --paymentId ID, webhook-resend --paymentId ID|--deliveryId ID,
                                               checkout-expiry --checkoutId ID, schedule-fire --scheduleId ID,
                                               registration-expiry --registrationId ID, settlement [--date D] [--entityId ID],
                                               upstream-notification --paymentId ID [--paymentType CB] [--resultCode C]
  sent [--paymentId ID] [--checkoutId ID] [--kind webhook|notification|redirect]   what the gateway sent, newest first
  clock [advance <seconds> | reset]            read, move or reset the test gateway's clock
`;

export const CONTROL_COMMANDS: ReadonlySet<string> = new Set(['trigger', 'sent', 'clock']);

/** `--name value` and `--name=value` pairs, in order: the control API's parameters. */
function parametersOf(args: readonly string[]): { readonly params: Record<string, string>; readonly positionals: string[] } {
  const params: Record<string, string> = {};
  const positionals: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf('=');
    if (equals > 2) {
      params[arg.slice(2, equals)] = arg.slice(equals + 1);
      continue;
    }
    const value = args[index + 1];
    if (value === undefined || value.startsWith('--')) throw new Error(`${arg} needs a value`);
    params[arg.slice(2)] = value;
    index++;
  }
  return { params, positionals };
}

/** The request a control command makes: method, path under /test/v1, form or query. */
function requestOf(command: string, args: readonly string[]): { method: 'GET' | 'POST'; path: string; params: Record<string, string> } {
  const { params, positionals } = parametersOf(args);
  switch (command) {
    case 'trigger': {
      const [name, ...extra] = positionals;
      if (name === undefined || extra.length > 0) throw new Error('trigger takes one event name: trigger <name> [--<parameter> <value>]...');
      return { method: 'POST', path: `/triggers/${encodeURIComponent(name)}`, params };
    }
    case 'sent':
      if (positionals.length > 0) throw new Error(`sent takes options only, not ${positionals.join(' ')}`);
      return { method: 'GET', path: '/sent', params };
    default: {
      const [action, seconds, ...extra] = positionals;
      if (extra.length > 0 || Object.keys(params).length > 0) throw new Error('clock takes: clock | clock advance <seconds> | clock reset');
      if (action === undefined) return { method: 'GET', path: '/clock', params: {} };
      if (action === 'reset' && seconds === undefined) return { method: 'POST', path: '/clock', params: { reset: 'true' } };
      if (action === 'advance' && seconds !== undefined) return { method: 'POST', path: '/clock', params: { advanceSeconds: seconds } };
      throw new Error('clock takes: clock | clock advance <seconds> | clock reset');
    }
  }
}

export async function controlCommand(args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const [command = '', ...rest] = args;
  let request: ReturnType<typeof requestOf>;
  try {
    request = requestOf(command, rest);
  } catch (error) {
    return { exitCode: 1, stdout: '', stderr: `${error instanceof Error ? error.message : String(error)}\n\n${CONTROL_USAGE}` };
  }
  const base = (env.GATEWAY_URL || `http://127.0.0.1:${env.PORT || '8080'}`).replace(/\/+$/, '');
  const form = new URLSearchParams(request.params).toString();
  const url = `${base}/test/v1${request.path}${request.method === 'GET' && form ? `?${form}` : ''}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method,
      ...(request.method === 'POST' ? { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form } : {}),
    });
  } catch (error) {
    return { exitCode: 1, stdout: '', stderr: `no gateway answers at ${base} (${error instanceof Error ? error.message : String(error)}): set GATEWAY_URL to the test gateway's address\n` };
  }
  const text = await response.text();
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    // Not JSON: shown as it came.
  }
  const description = (answer as { result?: { description?: unknown } } | undefined)?.result?.description;
  if (response.status === 404 && typeof description === 'string' && description.startsWith('no endpoint ')) {
    return { exitCode: 1, stdout: '', stderr: `the gateway at ${base} has no control API: start it with TEST_CONTROL_API=true (wpwl-gateway --ci has it)\n` };
  }
  const shown = answer === undefined ? text : JSON.stringify(answer, null, 2);
  return response.ok ? { exitCode: 0, stdout: `${shown}\n`, stderr: '' } : { exitCode: 1, stdout: '', stderr: `${shown}\n` };
}
