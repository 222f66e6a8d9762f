/** JSON of unknown shape, as it arrives (a request body, a settings file, a provider's answer), read safely. */

/** A JSON object: neither null nor an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
