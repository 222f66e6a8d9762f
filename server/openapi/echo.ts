import { CATALOGUE } from '../params/catalogue.ts';
import { NOT_ECHOED } from '../params/echo.ts';
import type { ParamSpec } from '../params/types.ts';
import { patternOf, type Schema } from './parameters.ts';

/**
 * The answer side of the parameter catalogue: what answers show back of a request (params/echo.ts requestEcho), as
 * JSON Schema. requestEcho nests every catalogue parameter it echoes by its name — `customer.email` becomes
 * `customer: {email}`, `cart.items[0].name` a list of objects, `customParameters[KEY]` a map of strings — so the
 * schemas of `customer`, `cart`, `threeDSecure`, ... are the catalogue's names nested the same way: one list of
 * parameters, read by the validator, the echo and this alike. Every object here is closed: a structure answers only
 * the parameters the catalogue has (a map, only its keys' pattern).
 */

type Tree =
  | { readonly kind: 'object'; readonly children: Map<string, Tree> }
  | { readonly kind: 'list'; item: Tree | undefined }
  | { readonly kind: 'map'; readonly keyPattern: RegExp | undefined; value: Tree | undefined }
  | { readonly kind: 'leaf'; readonly spec: ParamSpec };

/** A name as the catalogue writes it, step by step: `.name`, `[n]` (a list), `[*]` (a map key), `[LITERAL]` (a key). */
const NAME_TOKEN = /([^.[\]]+)|\[([^\]]*)\]/g;
type Step = { readonly kind: 'key'; readonly key: string } | { readonly kind: 'list' } | { readonly kind: 'map' };

function stepsOf(name: string): Step[] {
  return [...name.matchAll(NAME_TOKEN)].map(([, plain, bracket]): Step => {
    if (plain !== undefined) return { kind: 'key', key: plain };
    if (bracket === 'n') return { kind: 'list' };
    if (bracket === '*') return { kind: 'map' };
    return { kind: 'key', key: bracket ?? '' };
  });
}

/** Whether answers show a parameter back: what requestEcho echoes (never a secret). */
export function isEchoed(spec: ParamSpec): boolean {
  return !NOT_ECHOED.test(spec.name) && spec.sensitive !== 'secret';
}

/** The catalogue's echoed parameters as one tree; a name that needs a value where another needs a structure throws. */
function echoTree(): Tree {
  const root: Tree = { kind: 'object', children: new Map() };
  for (const spec of CATALOGUE.filter(isEchoed)) {
    const steps = stepsOf(spec.name);
    let node: Tree = root;
    steps.forEach((step, index) => {
      const last = index === steps.length - 1;
      const next = steps[index + 1];
      const wanted = (): Tree =>
        last
          ? { kind: 'leaf', spec }
          : next?.kind === 'list'
            ? { kind: 'list', item: undefined }
            : next?.kind === 'map'
              ? { kind: 'map', keyPattern: spec.keyPattern, value: undefined }
              : { kind: 'object', children: new Map() };
      const conflict = () => new Error(`${spec.name}: the catalogue names a value and a structure at the same place`);
      let child: Tree | undefined;
      if (step.kind === 'key') {
        if (node.kind !== 'object') throw conflict();
        child = node.children.get(step.key) ?? wanted();
        node.children.set(step.key, child);
      } else if (step.kind === 'list') {
        if (node.kind !== 'list') throw conflict();
        child = node.item ?? wanted();
        node.item = child;
      } else {
        if (node.kind !== 'map') throw conflict();
        child = node.value ?? wanted();
        node.value = child;
      }
      if ((child.kind === 'leaf') !== last) throw conflict();
      node = child;
    });
  }
  return root;
}

/** `threeDSecure` → `ThreeDSecure`: the component of a top-level structure. */
export function componentNameOf(key: string): string {
  return `${key.charAt(0).toUpperCase()}${key.slice(1)}`;
}

function leafSchema(spec: ParamSpec): Schema {
  const masked = spec.sensitive === 'pan' ? ', masked: its first six and last four characters' : '';
  return { type: 'string', description: `\`${spec.name}\` as sent${masked}.` };
}

function schemaOf(tree: Tree, at: string): Schema {
  switch (tree.kind) {
    case 'leaf':
      return leafSchema(tree.spec);
    case 'list':
      if (!tree.item) throw new Error(`${at}: a list without items`);
      return { type: 'array', items: schemaOf(tree.item, `${at}[n]`) };
    case 'map':
      if (!tree.value) throw new Error(`${at}: a map without values`);
      return {
        type: 'object',
        ...(tree.keyPattern ? { propertyNames: { pattern: patternOf(tree.keyPattern) } } : {}),
        additionalProperties: schemaOf(tree.value, `${at}[*]`),
      };
    case 'object':
      return {
        type: 'object',
        properties: Object.fromEntries([...tree.children].map(([key, child]) => [key, schemaOf(child, at === '' ? key : `${at}.${key}`)])),
        additionalProperties: false,
      };
  }
}

export interface EchoSchemas {
  /** The components of the top-level structures (`Customer`, `ThreeDSecure`, `CustomParameters`, ...), by name. */
  readonly components: Readonly<Record<string, Schema>>;
  /** Every top-level field an echo may have: a structure's `$ref`, a single parameter's string. */
  readonly properties: Readonly<Record<string, Schema>>;
}

/** The schemas of what answers echo, the structures as components that `ref` names. */
export function echoSchemas(ref: (component: string) => Schema): EchoSchemas {
  const root = echoTree();
  if (root.kind !== 'object') throw new Error('the echo is an object');
  const components: Record<string, Schema> = {};
  const properties: Record<string, Schema> = {};
  for (const [key, child] of root.children) {
    if (child.kind === 'leaf') {
      properties[key] = schemaOf(child, key);
      continue;
    }
    const name = componentNameOf(key);
    components[name] = { ...schemaOf(child, key), description: `\`${key}\` as the request sent it (its \`${key}.*\` parameters in the catalogue).` };
    properties[key] = ref(name);
  }
  return { components, properties };
}
