import type { Store } from '../store/index.ts';
import type { CardVault } from '../vault/cardVault.ts';
import { newCardDataKey } from '../vault/key.ts';
import { DEFAULT_ROTATION_BATCH, rotateSealedValues, scheduleCompactionAfterRotation, sealedValuesByKey, type KeyCount } from '../vault/rotation.ts';
import type { CliIO, Outcome, Usage } from './command.ts';

/** `npm run gateway -- keys ...`: the card-data keys, and re-sealing the vault with the current one. */

export const KEYS_USAGE = `  keys generate                              print a new card-data key (for CARD_DATA_KEY); also
                                             \`key generate\`
  keys status                                how many sealed card values each key id holds, and which
                                             key is current (CARD_DATA_KEY)
  keys rotate [--batch N]                    re-seal, N at a time (default ${DEFAULT_ROTATION_BATCH}), every card value
                                             sealed with a previous key (CARD_DATA_PREVIOUS_KEYS) with
                                             CARD_DATA_KEY, while gateways run (PostgreSQL; the embedded
                                             store's own gateway does it at start); then the vault's
                                             compaction is scheduled. Exits non-zero when values no
                                             configured key opens remain
`;

/** `keys generate`: needs neither the configuration nor the store. */
export function generateKey(): string {
  return `${newCardDataKey()}\n(set it as CARD_DATA_KEY on every gateway instance sharing the database, and keep it apart from the data)`;
}

/** `keys rotate --batch N`, checked before the configuration is read. */
export function batchOption(raw: string | undefined, usage: Usage): number {
  if (raw === undefined) return DEFAULT_ROTATION_BATCH;
  const batch = Number(raw);
  if (!/^\d+$/.test(raw) || batch < 1 || batch > 100_000) throw usage('--batch must be an integer between 1 and 100000');
  return batch;
}

const ROLES = {
  current: 'current (CARD_DATA_KEY)',
  previous: 'previous (CARD_DATA_PREVIOUS_KEYS)',
  unknown: 'not configured: nothing here opens these',
} as const;

/** `keys status`: the sealed values per key id. Key ids only: they are hashes, never a key. */
async function keyStatus(store: Store, vault: CardVault): Promise<string> {
  const counts = await sealedValuesByKey(store, vault);
  const lines = ['key id            sealed values  key', ...counts.map((count) => `${count.keyId}  ${String(count.sealedValues).padStart(13)}  ${ROLES[count.role]}`)];
  const sum = (role: KeyCount['role']) => counts.filter((count) => count.role === role).reduce((total, count) => total + count.sealedValues, 0);
  const [previous, unknown] = [sum('previous'), sum('unknown')];
  if (previous > 0) lines.push(`${previous} sealed value(s) still under a previous key: \`npm run gateway -- keys rotate\` re-seals them with the current one.`);
  if (unknown > 0) lines.push(`${unknown} sealed value(s) under a key that is not configured: no gateway with these keys can open them.`);
  if (previous === 0 && unknown === 0) lines.push('Every sealed value is under the current key.');
  return lines.join('\n');
}

/** `keys rotate`: see vault/rotation.ts. */
async function rotateKeys(store: Store, vault: CardVault, batchSize: number, io: CliIO): Promise<Outcome> {
  const now = io.now ?? (() => new Date());
  io.progress(`Re-sealing card data with the current key ${vault.keyId}, ${batchSize} value(s) per transaction`);
  const result = await rotateSealedValues(store, vault, {
    batchSize,
    onBatch: ({ resealed, totalResealed }) => io.progress(`  re-sealed ${resealed} (${totalResealed} so far)`),
  });
  if (result.resealed > 0) await scheduleCompactionAfterRotation(store, now());
  const lines = [
    `Re-sealed ${result.resealed} sealed value(s) with key ${vault.keyId}; ${result.left} left under other keys.`,
    result.resealed > 0
      ? 'Scheduled the vault compaction: the next job run of a gateway on this store rewrites the table, so the old ciphertexts leave its data files.'
      : 'Nothing was re-sealed; no compaction scheduled.',
  ];
  if (result.unopenable.length > 0) {
    lines.push(
      `${result.unopenable.length} sealed value(s) no configured key opens (sealed with a key that is not configured, or altered) were left as they are:`,
      ...result.unopenable.map((id) => `  vault item ${id}`),
      'If a key that is not configured sealed them, add it to CARD_DATA_PREVIOUS_KEYS and run this again.',
    );
  }
  const counts = await sealedValuesByKey(store, vault);
  const underPrevious = counts.filter((count) => count.role === 'previous').reduce((total, count) => total + count.sealedValues, 0);
  if (vault.keyIds.length === 1) {
    lines.push('No previous key is configured (CARD_DATA_PREVIOUS_KEYS).');
  } else if (underPrevious === 0) {
    lines.push(
      'The previous key(s) seal nothing any more and can be dropped from CARD_DATA_PREVIOUS_KEYS once every instance has run with this ' +
        'CARD_DATA_KEY for 24 hours (until then, an Idempotency-Key used before the switch is checked with the key it was used under).',
    );
  } else {
    lines.push(`Do not drop the previous key(s) yet: ${underPrevious} sealed value(s) still need them (a gateway not yet restarted with this CARD_DATA_KEY may have sealed them; run this again).`);
  }
  lines.push('', await keyStatus(store, vault));
  return { output: lines.join('\n'), exitCode: result.unopenable.length > 0 ? 1 : 0 };
}

/** Runs `keys status` or `keys rotate` (index.ts refuses any other action before it reads the configuration). */
export async function keysCommand(action: string | undefined, batchSize: number, store: Store, vault: CardVault, io: CliIO): Promise<string | Outcome> {
  return action === 'rotate' ? await rotateKeys(store, vault, batchSize, io) : await keyStatus(store, vault);
}
