import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadDashboardBuild } from '../../server/dashboard/assets.ts';

/** What the back office's first page downloads, gzip, on the build the suite made (globalSetup). */

const BUDGET = 60 * 1024;
const gzipSize = (bytes: Uint8Array) => gzipSync(bytes, { level: 9 }).length;

describe('the dashboard build', () => {
  const build = () => {
    const found = loadDashboardBuild();
    if (!found) throw new Error('the dashboard build is missing');
    return found;
  };

  it('keeps the first page (the entry script and the stylesheet) within 60 KB gzip', () => {
    const { script, stylesheets, files } = build();
    const total = [script, ...stylesheets].reduce((sum, name) => sum + gzipSize(files.get(name)!.bytes), 0);
    expect(total).toBeLessThanOrEqual(BUDGET);
  });

  it('loads the pages after the first as chunks of their own, which the entry only imports on demand', () => {
    const { script, files } = build();
    const entry = new TextDecoder().decode(files.get(script)!.bytes);
    const chunks = [...files.keys()].filter((name) => name !== script && name.endsWith('.js'));
    for (const page of ['Settings', 'Settlements', 'Webhooks']) expect(chunks.some((name) => name.startsWith(`${page}-`)), page).toBe(true);
    // Not imported statically by the entry: no `import ... from "./Settings-…js"` at its top.
    expect(entry).not.toMatch(/^import[^;]*from\s*["']\.\/Settings-/m);
  });
});
