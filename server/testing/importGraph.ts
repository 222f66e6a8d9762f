import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import ts from 'typescript';

/**
 * The import graph of the sources under a directory, for the structure test (architecture.test.ts): every static,
 * type-only and dynamic import of a relative path, resolved to a file. Tests are left out: they may reach anywhere.
 */

export interface ImportEdge {
  /** Paths relative to the root the graph was read from, with `/` separators. */
  readonly from: string;
  readonly to: string;
}

function sourcesUnder(directory: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'fixtures') found.push(...sourcesUnder(path));
    } else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      found.push(path);
    }
  }
  return found;
}

function resolved(fromFile: string, specifier: string): string | undefined {
  const base = join(dirname(fromFile), specifier);
  for (const candidate of [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this candidate
    }
  }
  return undefined;
}

const posix = (path: string): string => path.split(sep).join('/');

/** The files under `directory` (relative to `root`) and their imports of other files (anywhere under `root`). */
export function importGraph(root: string, directory: string): { readonly files: readonly string[]; readonly edges: readonly ImportEdge[] } {
  const files = sourcesUnder(join(root, directory));
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolved(file, fileName);
      if (target) edges.push({ from: posix(relative(root, file)), to: posix(relative(root, target)) });
    }
  }
  return { files: files.map((file) => posix(relative(root, file))), edges };
}

/** The strongly connected groups of more than one node (Tarjan): each is a cycle, or several sharing nodes. */
export function cyclesOf(nodes: Iterable<string>, edges: Iterable<readonly [string, string]>): string[][] {
  const next = new Map<string, Set<string>>();
  for (const [from, to] of edges) {
    if (from === to) continue;
    let targets = next.get(from);
    if (!targets) next.set(from, (targets = new Set()));
    targets.add(to);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return groups;
}
