/**
 * Parameter names as paths: `cart.items[0].name` is cart → items → 0 → name. Requests are echoed nested, and names
 * that could reach an object prototype are found here.
 */

const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);
/** A name is a dotted path whose parts may carry `[index]` or `[key]` suffixes. */
const NAME_TOKEN = /([^.[\]]+)|\[([^\]]*)\]/g;

function isForbiddenSegment(segment: PathSegment): boolean {
  return typeof segment === 'string' && FORBIDDEN_SEGMENTS.has(segment);
}

const MAY_HOLD_FORBIDDEN_SEGMENT = /__proto__|constructor|prototype/;

/** Whether a name has a segment that could reach an object prototype (`__proto__`, `constructor`, `prototype`). */
export function hasForbiddenSegment(name: string): boolean {
  // The substring test is a cheap filter: almost no name needs splitting into segments.
  return MAY_HOLD_FORBIDDEN_SEGMENT.test(name) && pathOf(name).some(isForbiddenSegment);
}

/** A step in a nested structure: a name or map key (string), or a list index (number). */
export type PathSegment = string | number;

const LIST_INDEX = /^(0|[1-9][0-9]*)$/;

/**
 * The path of a parameter name. Given the catalogue template of the name (`cart.items[n].name`,
 * `customParameters[*]`), only `[n]` positions are list indexes, so `customParameters[123]` stays a key;
 * without a template, any all-digit bracket is an index.
 */
export function pathOf(name: string, template?: string): PathSegment[] {
  const templateTokens = template === undefined ? undefined : [...template.matchAll(NAME_TOKEN)];
  return [...name.matchAll(NAME_TOKEN)].map((match, position) => {
    const bracket = match[2];
    if (bracket === undefined) return match[1] ?? '';
    const isListPosition = templateTokens === undefined || templateTokens[position]?.[2] === 'n';
    return isListPosition && LIST_INDEX.test(bracket) ? Number(bracket) : bracket;
  });
}

/** Containers keep their entries in Maps while building, so no key can ever reach a prototype. */
class ObjectNode extends Map<string, TreeNode> {}
class ListNode extends Map<number, TreeNode> {}
type TreeNode = string | ObjectNode | ListNode;

function toPlain(node: TreeNode): unknown {
  if (typeof node === 'string') return node;
  if (node instanceof ListNode) {
    return [...node.entries()].sort((a, b) => a[0] - b[0]).map(([, child]) => toPlain(child));
  }
  const result: Record<string, unknown> = Object.create(null);
  for (const [key, child] of node) result[key] = toPlain(child);
  return result;
}

/**
 * Nests `cart.items[0].name`-style names: `{cart: {items: [{name}]}}`. Objects have no prototype, and list
 * indexes become array positions in index order (gaps closed) without ever allocating a sparse array.
 * `templateOf` names the catalogue template of a name (see pathOf). A name that conflicts with an earlier
 * one (a value where a structure is needed, a list where an object is) is skipped.
 */
export function toNested(
  entries: Iterable<readonly [string, string]>,
  templateOf: (name: string) => string | undefined = () => undefined,
): Record<string, unknown> {
  const root = new ObjectNode();
  for (const [name, value] of entries) {
    const path = pathOf(name, templateOf(name));
    if (path.length === 0 || path.some(isForbiddenSegment)) {
      continue;
    }
    let node: ObjectNode | ListNode = root;
    let placed = true;
    for (let position = 0; position < path.length && placed; position++) {
      const segment = path[position] as PathSegment;
      if (typeof segment === 'number' !== node instanceof ListNode) {
        placed = false;
        break;
      }
      const existing = (node as Map<PathSegment, TreeNode>).get(segment);
      if (position === path.length - 1) {
        if (existing === undefined) (node as Map<PathSegment, TreeNode>).set(segment, value);
        break;
      }
      const wantsList = typeof path[position + 1] === 'number';
      if (existing === undefined) {
        const created = wantsList ? new ListNode() : new ObjectNode();
        (node as Map<PathSegment, TreeNode>).set(segment, created);
        node = created;
      } else if (typeof existing !== 'string' && existing instanceof ListNode === wantsList) {
        node = existing;
      } else {
        placed = false;
      }
    }
  }
  return toPlain(root) as Record<string, unknown>;
}
