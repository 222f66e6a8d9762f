import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCardVault, loadCardDataKey } from './cardVault.ts';

const card = { number: '4200000000000042', expiryMonth: 5, expiryYear: 2034, holder: 'Jane Jones', brand: 'VISA' };

describe('the card vault', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('seals a card so that nothing of it is readable, and opens it again', () => {
    const vault = createCardVault(Buffer.alloc(32, 1));
    const sealed = vault.seal(card);
    expect(JSON.stringify(sealed)).not.toContain('4200000000000042');
    expect(JSON.stringify(sealed)).not.toContain('Jane');
    expect(vault.open(sealed)).toEqual(card);
    // A fresh IV each time: the same card never seals to the same bytes.
    expect(vault.seal(card).data).not.toBe(sealed.data);
  });

  it('refuses a value sealed with another key, or altered', () => {
    const sealed = createCardVault(Buffer.alloc(32, 1)).seal(card);
    expect(() => createCardVault(Buffer.alloc(32, 2)).open(sealed)).toThrow(/another key/);
    const flipped = Buffer.from(sealed.data, 'base64');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => createCardVault(Buffer.alloc(32, 1)).open({ ...sealed, data: flipped.toString('base64') })).toThrow();
  });

  it('keeps a generated key in the data directory, readable by its owner only, and reuses it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-'));
    dirs.push(dir);
    const created = loadCardDataKey(undefined, dir);
    const file = join(dir, 'card-data.key');
    expect(readFileSync(file, 'utf8').trim()).toBe(created.toString('hex'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadCardDataKey(undefined, dir).equals(created)).toBe(true);
    // A configured key wins over the file.
    expect(loadCardDataKey(Buffer.alloc(32, 9), dir).equals(Buffer.alloc(32, 9))).toBe(true);
  });
});
