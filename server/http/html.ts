/**
 * Text put into the gateway's own HTML pages (the redirect pages, the demo shop): every character that could end a
 * text node or an attribute value, as a numeric character reference.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
