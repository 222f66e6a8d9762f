import type { WidgetErrorInfo } from '../app/callbacks.ts';
import type { ErrorKey, LabelKey } from '../app/messages.ts';
import type { Style, WidgetOptions } from '../app/options.ts';
import type { beforeSubmitEvent } from '../app/payment/flow.ts';
import type { JqueryLike } from '../app/extras/jqueryLike.ts';
import type { WpwlError, WpwlErrorMessages, WpwlJquery, WpwlLabels, WpwlOptions, WpwlStyle, WpwlSubmitEvent } from './wpwl.d.ts';

/**
 * The merchants' declarations (wpwl.d.ts) and the widget's code, held together at compile time: this file compiles
 * (`tsc --noEmit`, part of `npm test`) only while every option the widget reads is declared, and what the widget hands
 * to callbacks fits what the declarations promise. Nothing imports it; it is types only, so no bundle changes.
 *
 * A failure names what drifted: `Type '"newOption"' does not satisfy the constraint 'never'` is an option read by
 * options.ts that wpwl.d.ts does not declare. What the compiler cannot see from here (callbacks looked up by name,
 * options read from `raw`, the `wpwl` members) is checked by widget/test/declarations.test.ts.
 */

/** Compiles only when `Keys` is empty; otherwise the error names the keys. */
type None<Keys extends never> = Keys;
/** Compiles only when `Value` fits `Target`; otherwise the error says where it does not. */
type Fits<Target, Value extends Target> = Value;
/** An interface's named keys, without its index signature. */
type NamedKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

/** Every option of the widget's own (options.ts, `raw` aside: the object itself, for callbacks) is declared. */
export type EveryOptionDeclared = None<Exclude<keyof WidgetOptions, 'raw' | keyof WpwlOptions>>;

/** Every style the widget tells apart is declared. */
export type StylesDeclared = Fits<WpwlStyle, Style>;

/** The labels and error messages merchants may replace are exactly the widget's texts (locales/en.json). */
export type EveryLabelDeclared = None<Exclude<LabelKey, NamedKeys<WpwlLabels>>>;
export type NoLabelInvented = None<Exclude<NamedKeys<WpwlLabels>, LabelKey>>;
export type EveryErrorMessageDeclared = None<Exclude<ErrorKey, NamedKeys<WpwlErrorMessages>>>;
export type NoErrorMessageInvented = None<Exclude<NamedKeys<WpwlErrorMessages>, ErrorKey>>;

/** What onError gets (callbacks.ts reportError) is a WpwlError. */
export type ErrorsFit = Fits<WpwlError, WidgetErrorInfo>;

/** What the onBeforeSubmit* callbacks get (payment/flow.ts) is a WpwlSubmitEvent, and it is all of one. */
export type SubmitEventFits = Fits<WpwlSubmitEvent, ReturnType<typeof beforeSubmitEvent>['event']>;
export type SubmitEventComplete = None<Exclude<keyof WpwlSubmitEvent, keyof ReturnType<typeof beforeSubmitEvent>['event']>>;

/** The widget's jQuery-like `this.$form` (extras/jqueryLike.ts) has every method the declarations promise, as declared. */
export type JqueryLikeFits = Fits<WpwlJquery, JqueryLike>;
