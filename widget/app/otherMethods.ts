/**
 * The forms of the families other than cards (asynchronous brands, direct debit) and the chooser a page with several
 * methods shows (chooser/Chooser.tsx): one chunk, loaded by every page that offers more than cards, never by a
 * card-only page (methods.ts). One chunk for them, not one each: the stylesheet-free direct-debit form is small, and
 * every page that shows the chooser has one of them.
 */
export { asyncContainer, RedirectForm } from './redirect/RedirectForm.tsx';
export { DirectDebitForm } from './directDebit/DirectDebitForm.tsx';
export { Chooser } from './chooser/Chooser.tsx';
