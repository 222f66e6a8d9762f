import { ClickToPayForm, CONTAINER } from './ClickToPayForm.tsx';

/** Click to Pay's chunk, as otherMethods.ts OWN_FORMS loads a brand's own form: the form and its container. */
export const Form = ClickToPayForm;
export const container = (): string => CONTAINER;
