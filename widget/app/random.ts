/** 16 random bytes as hex: hosted-field channels, request ids, frame names. */
export function randomChannel(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
