/** `import texts from 'wpwl:locale/<group>'`: the English of one group of locales/en.json (widget/localeGroups.ts). */
declare module 'wpwl:locale/*' {
  const texts: Readonly<Record<string, string>>;
  export default texts;
}
