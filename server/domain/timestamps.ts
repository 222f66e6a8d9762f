/** Times as the API writes them (COMPAT §1). */

function pad(value: number, width = 2): string {
  return value.toString().padStart(width, '0');
}

/** `yyyy-MM-dd HH:mm:ss.SSS+0000` (UTC). */
export function formatTimestamp(date: Date): string {
  return (
    `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}.` +
    `${pad(date.getUTCMilliseconds(), 3)}+0000`
  );
}
