import { createOperator, listOperators, newOperatorPassword, OperatorRefused, removeOperator, resetOperatorSecondFactor, setOperatorPassword } from '../dashboard/operators.ts';
import type { Store } from '../store/index.ts';
import type { CommandFiles, Usage } from './command.ts';

/** `npm run gateway -- operator ...`: the back office's operator accounts (dashboard/operators.ts). */

export const OPERATOR_USAGE = `  operator create NAME [--password-file FILE]
                                             create a dashboard operator (sees and acts for every
                                             entity); without a file a password is generated and shown
                                             once; only a salted scrypt hash of it is stored
  operator password NAME [--password-file FILE]
                                             give the operator a new password and end their sessions
  operator list                              list operators
  operator remove NAME                       remove an operator and end their sessions
  operator reset-second-factor NAME          forget the operator's authenticator (a lost phone) and end
                                             their sessions; the next sign-in enrols a new one
`;

/** The password from the file (its first line), or a generated one to show. */
function passwordFrom(file: string | undefined, files: CommandFiles): { readonly password: string; readonly generated: boolean } {
  if (file === undefined) return { password: newOperatorPassword(), generated: true };
  let text: string;
  try {
    text = files.read(file);
  } catch {
    throw new OperatorRefused(`cannot read the password file ${file}`);
  }
  return { password: text.split(/\r?\n/)[0] ?? '', generated: false };
}

export async function operatorCommand(
  action: string | undefined,
  values: { readonly 'password-file'?: string | undefined },
  positionals: readonly string[],
  context: { readonly store: Store; readonly now: () => Date; readonly files: CommandFiles },
  usage: Usage,
): Promise<string> {
  const { store, now, files } = context;
  const name = positionals[0];
  switch (action) {
    case 'create':
    case 'password': {
      if (!name) throw usage(`operator ${action} needs the operator's NAME`);
      const { password, generated } = passwordFrom(values['password-file'], files);
      if (action === 'create') await createOperator(store, name, password, now());
      else if (!(await store.transaction((tx) => setOperatorPassword(tx, name, password, now())))) throw new OperatorRefused(`no operator ${name}`);
      const done = action === 'create' ? `operator ${name} created` : `operator ${name} has a new password; their sessions ended`;
      return generated ? `${done}\npassword  ${password}\n(the password is shown once; only a salted scrypt hash of it is stored)` : done;
    }
    case 'list': {
      const operators = await listOperators(store);
      return operators.map((operator) => `${operator.name}  created ${operator.createdAt.toISOString()}`).join('\n') || '(no operators)';
    }
    case 'remove': {
      if (!name) throw usage('operator remove needs the operator\'s NAME');
      if (!(await store.transaction((tx) => removeOperator(tx, name, now())))) throw new OperatorRefused(`no operator ${name}`);
      return `operator ${name} removed; their sessions ended`;
    }
    case 'reset-second-factor': {
      if (!name) throw usage("operator reset-second-factor needs the operator's NAME");
      const reset = await store.transaction((tx) => resetOperatorSecondFactor(tx, name, now()));
      if (reset === undefined) throw new OperatorRefused(`no operator ${name}`);
      return reset ? `operator ${name}'s second factor reset; their sessions ended: the next sign-in enrols a new one` : `operator ${name} had no second factor enrolled; their sessions ended`;
    }
    default:
      throw usage(`unknown command: operator ${action ?? ''}`.trimEnd());
  }
}
