/**
 * `this.$form` and `this.$iframe` on a page without jQuery (COMPAT §5): merchant code written for the platform calls
 * jQuery methods on them (`this.$form.find('.wpwl-control-brand').val()` in HyperPay's OpenCart extension and a
 * PrestaShop template). This is the subset such code uses, with jQuery's semantics: a getter reads the first element,
 * a setter writes every element and returns the set for chaining; `[0]` is the element and `length` the count.
 */

export interface JqueryLike {
  readonly length: number;
  readonly [index: number]: Element;
  find(selector: string): JqueryLike;
  closest(selector: string): JqueryLike;
  parent(): JqueryLike;
  each(callback: (this: Element, index: number, element: Element) => unknown): JqueryLike;
  val(): string | undefined;
  val(value: string): JqueryLike;
  text(): string;
  text(value: string): JqueryLike;
  attr(name: string): string | undefined;
  attr(name: string, value: string): JqueryLike;
  prop(name: string): unknown;
  prop(name: string, value: unknown): JqueryLike;
  hasClass(name: string): boolean;
  addClass(names: string): JqueryLike;
  removeClass(names: string): JqueryLike;
  on(events: string, handler: (this: Element, event: Event) => unknown): JqueryLike;
  on(events: string, selector: string, handler: (this: Element, event: Event) => unknown): JqueryLike;
  append(content: string | Node | JqueryLike): JqueryLike;
  remove(): JqueryLike;
  hide(): JqueryLike;
  show(): JqueryLike;
  is(selector: string): boolean;
}

type Valued = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
const isValued = (element: Element): element is Valued =>
  element instanceof HTMLInputElement || element instanceof HTMLSelectElement || element instanceof HTMLTextAreaElement;
const classes = (names: string) => names.split(/\s+/).filter(Boolean);

/** A jQuery-like set of `elements` (one element, or several from `find`). */
export function jqueryLike(elements: Element | readonly Element[]): JqueryLike {
  const list = Array.isArray(elements) ? [...new Set(elements as readonly Element[])] : [elements as Element];
  const first = list[0];
  const each = (apply: (element: Element) => void) => {
    list.forEach(apply);
    return set;
  };
  const set: JqueryLike = Object.assign(Object.create(null) as object, list, {
    length: list.length,
    find: (selector: string) => jqueryLike(list.flatMap((element) => Array.from(element.querySelectorAll(selector)))),
    closest: (selector: string) => jqueryLike(list.flatMap((element) => element.closest(selector) ?? [])),
    parent: () => jqueryLike(list.flatMap((element) => element.parentElement ?? [])),
    each: (callback: (this: Element, index: number, element: Element) => unknown) => {
      list.every((element, index) => callback.call(element, index, element) !== false);
      return set;
    },
    val: ((value?: string) =>
      value === undefined ? (first && isValued(first) ? first.value : undefined) : each((element) => isValued(element) && (element.value = value))) as JqueryLike['val'],
    text: ((value?: string) => (value === undefined ? list.map((element) => element.textContent ?? '').join('') : each((element) => (element.textContent = value)))) as JqueryLike['text'],
    attr: ((name: string, value?: string) =>
      value === undefined ? (first?.getAttribute(name) ?? undefined) : each((element) => element.setAttribute(name, value))) as JqueryLike['attr'],
    prop: ((name: string, ...value: unknown[]) =>
      value.length === 0
        ? (first as unknown as Record<string, unknown> | undefined)?.[name]
        : each((element) => ((element as unknown as Record<string, unknown>)[name] = value[0]))) as JqueryLike['prop'],
    hasClass: (name: string) => list.some((element) => element.classList.contains(name)),
    addClass: (names: string) => each((element) => element.classList.add(...classes(names))),
    removeClass: (names: string) => each((element) => element.classList.remove(...classes(names))),
    on: (events: string, selectorOrHandler: string | ((this: Element, event: Event) => unknown), delegated?: (this: Element, event: Event) => unknown) =>
      each((element) => {
        for (const type of classes(events)) {
          element.addEventListener(type, (event) => {
            if (typeof selectorOrHandler === 'function') return selectorOrHandler.call(element, event);
            const target = event.target instanceof Element ? event.target.closest(selectorOrHandler) : null;
            if (target && element.contains(target)) delegated?.call(target, event);
          });
        }
      }),
    append: (content: string | Node | JqueryLike) =>
      each((element) => {
        if (typeof content === 'string') element.insertAdjacentHTML('beforeend', content);
        else if (content instanceof Node) element.appendChild(content);
        else for (const node of Array.from(content as ArrayLike<Element>)) element.appendChild(node);
      }),
    remove: () => each((element) => element.remove()),
    hide: () => each((element) => element instanceof HTMLElement && (element.style.display = 'none')),
    show: () => each((element) => element instanceof HTMLElement && (element.style.display = '')),
    is: (selector: string) => list.some((element) => element.matches(selector)),
  });
  return set;
}
