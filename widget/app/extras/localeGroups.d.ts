/** `import texts from 'wpwl:locale/<group>'`: the English of one group of locales/en.json (widget/localeGroups.ts). */
declare module 'wpwl:locale/*' {
  const texts: Readonly<Record<string, string>>;
  export default texts;
}

/** `import english from 'wpwl:english/<part>'`: the forms' English shown by one chunk, or the entry's (widget/localeGroups.ts). */
declare module 'wpwl:english/*' {
  const english: { readonly labels: Readonly<Record<string, string>>; readonly errorMessages: Readonly<Record<string, string>> };
  export default english;
}
