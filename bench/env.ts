/** A bench knob from the environment: a whole number from 1 (to `max`), or `fallback` when unset. */
export function positiveIntFromEnv(name: string, fallback: number, max: number = Number.MAX_SAFE_INTEGER): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new Error(`${name} must be ${max === Number.MAX_SAFE_INTEGER ? 'a positive integer' : `an integer between 1 and ${max}`}, got "${raw}"`);
  }
  return value;
}
