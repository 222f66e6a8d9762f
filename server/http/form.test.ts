import { describe, expect, it } from 'vitest';
import { maskedParameterError } from '../params/validate.ts';
import { toNested } from '../params/names.ts';
import { mergeForms, parseForm, type ParsedForm } from './form.ts';

function entries(form: ParsedForm): [string, string][] {
  return [...form.params];
}

function errorNames(form: ParsedForm): string[] {
  return form.errors.map((error) => error.name);
}

function expectNoPollution(): void {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const empty = {} as any;
  for (const key of ['polluted', 'x', 'y', 'z']) {
    expect(empty[key], key).toBeUndefined();
    expect(Object.prototype, key).not.toHaveProperty(key);
  }
  expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  expect(typeof Object.prototype.hasOwnProperty).toBe('function');
  expect(typeof Object.prototype.toString).toBe('function');
}

/** Every own property of every object in the tree: objects have no prototype, arrays have no holes. */
function expectPlainTree(node: unknown, path = 'root'): void {
  if (typeof node === 'string') return;
  if (Array.isArray(node)) {
    node.forEach((item, index) => {
      expect(index in node, `${path}[${index}] is no hole`).toBe(true);
      expectPlainTree(item, `${path}[${index}]`);
    });
    return;
  }
  expect(typeof node, path).toBe('object');
  expect(Object.getPrototypeOf(node), `${path} has no prototype`).toBeNull();
  for (const [key, value] of Object.entries(node as object)) expectPlainTree(value, `${path}.${key}`);
}

describe('parseForm', () => {
  it('keeps names as sent in a flat map, in order', () => {
    const form = parseForm('amount=92.00&cart.items[0].name=Shoe&customParameters[my.param]=x');
    expect(entries(form)).toEqual([
      ['amount', '92.00'],
      ['cart.items[0].name', 'Shoe'],
      ['customParameters[my.param]', 'x'],
    ]);
    expect(form.errors).toEqual([]);
  });

  it('counts an empty value as absent, as the platform does (descriptor=, amount= on a reversal)', () => {
    const form = parseForm('amount=&descriptor=&billing.street2=&bare&merchantInvoiceId=&paymentType=RV&a=&a=');
    expect(entries(form)).toEqual([['paymentType', 'RV']]);
    expect(form.errors).toEqual([]);
  });

  it.each([
    ['+ is a space', 'card.holder=Jane+Jones', 'card.holder', 'Jane Jones'],
    ['%2B is a plus sign', 'phone=%2B49+30', 'phone', '+49 30'],
    ['%20 is a space', 'card.holder=Jane%20Jones', 'card.holder', 'Jane Jones'],
    ['multi-byte UTF-8', 'card.holder=J%C3%BCrgen%20%F0%9F%98%80', 'card.holder', 'Jürgen 😀'],
    ['raw non-ASCII text', 'card.holder=Jürgen', 'card.holder', 'Jürgen'],
    ['an encoded name', 'card%2Eholder=x', 'card.holder', 'x'],
    ['an encoded ampersand and equals sign', 'descriptor=a%26b%3Dc', 'descriptor', 'a&b=c'],
    ['an equals sign in the value', 'descriptor=a=b', 'descriptor', 'a=b'],
    ['+ in the name', 'a+b=1', 'a b', '1'],
  ])('decodes %s', (_label, text, name, value) => {
    const form = parseForm(text);
    expect(form.errors).toEqual([]);
    expect(form.params.get(name)).toBe(value);
  });

  it('skips empty pairs and pairs without a name', () => {
    const form = parseForm('&&a=1&&=orphan&b=2&');
    expect(entries(form)).toEqual([
      ['a', '1'],
      ['b', '2'],
    ]);
    expect(form.errors).toEqual([]);
  });

  it('returns an empty form for an empty text', () => {
    expect(entries(parseForm(''))).toEqual([]);
    expect(parseForm('').errors).toEqual([]);
  });

  it.each([
    ['amount=1.00&amount=2.00', 'amount'],
    ['amount=1.00&%61mount=2.00', 'amount'],
    ['card.holder=a&card.holder=a', 'card.holder'],
    ['cart.items[0].name=a&cart.items%5B0%5D.name=b', 'cart.items[0].name'],
  ])('reports a name sent twice: %s', (text, name) => {
    const form = parseForm(text);
    expect(form.errors).toEqual([{ name, value: '', message: expect.stringMatching(/more than once/) }]);
    // The first value is kept; the error makes the request fail anyway.
    expect(form.params.size).toBe(1);
  });

  it.each([
    ['%ZZ in a value', 'a=1&merchantTransactionId=ab%ZZ&b=2', 'merchantTransactionId'],
    ['%C3%28 in a value', 'a=1&card.holder=x%C3%28y&b=2', 'card.holder'],
    ['a lone % in a value', 'a=1&descriptor=100%&b=2', 'descriptor'],
    ['a truncated escape in a value', 'a=1&descriptor=%E0%A4%A&b=2', 'descriptor'],
    ['an encoded lone surrogate in a value', 'a=1&descriptor=%ED%A0%80&b=2', 'descriptor'],
    ['an overlong encoding in a value', 'a=1&descriptor=%C0%AF&b=2', 'descriptor'],
    ['%ZZ in a name', 'a=1&na%ZZme=x&b=2', 'na%ZZme'],
    ['%C3%28 in a name', 'a=1&na%C3%28me=x&b=2', 'na%C3%28me'],
  ])('reports malformed percent-encoding: %s', (_label, text, name) => {
    const form = parseForm(text);
    expect(form.errors).toHaveLength(1);
    expect(form.errors[0]).toMatchObject({ name, value: '', message: expect.stringMatching(/percent-encoded UTF-8/) });
    expect(form.params.has(name)).toBe(false);
    // The well-formed pairs around it are read as usual.
    expect(form.params.get('a')).toBe('1');
    expect(form.params.get('b')).toBe('2');
  });

  it('never changes a name or value silently: a malformed pair is not in the map, not even with U+FFFD', () => {
    const form = parseForm('card.holder=x%C3%28y&x%C3%28y=1&z%FF=2&ok=1');
    expect(form.errors).toHaveLength(3);
    expect(entries(form)).toEqual([['ok', '1']]);
  });

  it('reports a malformed name as sent, cut in the answer as every text shown back is, and keeps the pair out of the map', () => {
    const form = parseForm(`${'n'.repeat(300)}%ZZ=1&${'m'.repeat(100)}%C3%28=2`);
    expect(form.errors.map((error) => error.name.length)).toEqual([303, 106]);
    expect(form.errors.map(maskedParameterError).map((error) => error.name)).toEqual([`${'n'.repeat(256)}…`, `${'m'.repeat(100)}%C3%28`]);
    expect(form.params.size).toBe(0);
  });

  const FORBIDDEN = [
    '__proto__',
    '__proto__[polluted]',
    '__proto__.polluted',
    'constructor',
    'constructor[prototype][x]',
    'constructor.prototype.x',
    'prototype',
    'a.prototype',
    'a[__proto__]',
    'a[constructor]',
    'a.b.c.__proto__',
    'customParameters[__proto__]',
    'cart.items[0].__proto__',
    'cart.items[0].constructor.prototype.polluted',
    'a[b].__proto__[c]',
    'a[__proto__',
    '[__proto__]',
    '.__proto__.',
  ];

  it.each(FORBIDDEN)('reports the forbidden name %s and keeps it out of the map', (name) => {
    const form = parseForm(`amount=1.00&${encodeURIComponent(name)}=1`);
    expect(form.errors).toEqual([{ name, value: '', message: 'is not an allowed parameter name' }]);
    expect(form.params.has(name)).toBe(false);
    expect(form.params.get('amount')).toBe('1.00');
    expectNoPollution();
  });

  it('reports forbidden names sent unencoded and percent-encoded alike', () => {
    const form = parseForm('__proto__[polluted]=1&%5F%5Fproto%5F%5F.x=1&constructor%5Bprototype%5D%5By%5D=1');
    expect(errorNames(form)).toEqual(['__proto__[polluted]', '__proto__.x', 'constructor[prototype][y]']);
    expect(form.params.size).toBe(0);
    expectNoPollution();
  });

  it.each(['__proto__x', 'proto', 'Constructor', 'constructors', 'prototypes', 'a.__proto', 'hasOwnProperty', 'toString'])(
    'accepts %s, which is no forbidden segment',
    (name) => {
      const form = parseForm(`${encodeURIComponent(name)}=1`);
      expect(form.errors).toEqual([]);
      expect(form.params.get(name)).toBe('1');
    },
  );

  it('reports every problem of a request, not only the first', () => {
    const form = parseForm('a=1&a=2&__proto__=x&b=%ZZ&c=3');
    expect(errorNames(form).sort()).toEqual(['__proto__', 'a', 'b']);
    expect(form.params.get('c')).toBe('3');
  });

  it('reads 10,000 pairs', () => {
    const text = Array.from({ length: 10_000 }, (_, index) => `p${index}=${index}`).join('&');
    const form = parseForm(text);
    expect(form.params.size).toBe(10_000);
    expect(form.params.get('p9999')).toBe('9999');
  });
});

describe('mergeForms', () => {
  it('merges query string and body, query first', () => {
    const merged = mergeForms(parseForm('entityId=e&a=1'), parseForm('amount=1.00&b=2'));
    expect(entries(merged)).toEqual([
      ['entityId', 'e'],
      ['a', '1'],
      ['amount', '1.00'],
      ['b', '2'],
    ]);
    expect(merged.errors).toEqual([]);
  });

  it('reports a name in both, keeping the first value', () => {
    const merged = mergeForms(parseForm('amount=1.00'), parseForm('amount=2.00&b=2'));
    expect(merged.errors).toEqual([{ name: 'amount', value: '', message: expect.stringMatching(/more than once/) }]);
    expect(merged.params.get('amount')).toBe('1.00');
    expect(merged.params.get('b')).toBe('2');
  });

  it('keeps the errors of both sources', () => {
    const merged = mergeForms(parseForm('a=%ZZ'), parseForm('__proto__=1&b=1&b=2'));
    expect(errorNames(merged)).toEqual(['a', '__proto__', 'b']);
  });

  it('does not change its inputs', () => {
    const first = parseForm('a=1');
    const second = parseForm('a=2&b=2');
    mergeForms(first, second);
    expect(entries(first)).toEqual([['a', '1']]);
    expect(first.errors).toEqual([]);
    expect(entries(second)).toEqual([
      ['a', '2'],
      ['b', '2'],
    ]);
    expect(second.errors).toEqual([]);
  });
});

describe('toNested', () => {
  it('nests dotted names', () => {
    const nested = toNested([
      ['customer.givenName', 'Jane'],
      ['customer.surname', 'Jones'],
      ['billing.street1', 'Main Street 1'],
      ['descriptor', 'shop'],
    ]);
    expect(nested).toEqual({
      customer: { givenName: 'Jane', surname: 'Jones' },
      billing: { street1: 'Main Street 1' },
      descriptor: 'shop',
    });
    expectPlainTree(nested);
  });

  it('turns [n] into arrays in index order, whatever the order sent', () => {
    const nested = toNested([
      ['cart.items[10].name', 'ten'],
      ['cart.items[2].name', 'two'],
      ['cart.items[0].name', 'zero'],
      ['cart.items[2].price', '2.00'],
      ['cart.items[0].price', '0.00'],
    ]);
    expect(nested).toEqual({
      cart: {
        items: [{ name: 'zero', price: '0.00' }, { name: 'two', price: '2.00' }, { name: 'ten' }],
      },
    });
    expectPlainTree(nested);
  });

  it('closes gaps: cart.items[5] alone is a one-element array', () => {
    const nested = toNested([['cart.items[5].name', 'five']]) as { cart: { items: unknown[] } };
    expect(nested.cart.items).toEqual([{ name: 'five' }]);
    expect(nested.cart.items).toHaveLength(1);
  });

  it.each(['999999999', '4294967295', '4294967296', '99999999999999999999999999'])(
    'does not allocate a huge array for index %s',
    (index) => {
      const nested = toNested([
        [`cart.items[${index}].name`, 'far'],
        ['cart.items[1].name', 'near'],
      ]) as { cart: { items: unknown[] } };
      expect(nested.cart.items).toHaveLength(2);
      expect(nested.cart.items).toEqual([{ name: 'near' }, { name: 'far' }]);
      expectPlainTree(nested);
    },
  );

  it('nests lists in lists', () => {
    const nested = toNested([
      ['a[1][0]', 'x'],
      ['a[0][1]', 'y'],
      ['a[0][0]', 'z'],
    ]);
    expect(nested).toEqual({ a: [['z', 'y'], ['x']] });
  });

  it('turns a list of values into an array of strings', () => {
    expect(toNested([
      ['tags[1]', 'b'],
      ['tags[0]', 'a'],
    ])).toEqual({ tags: ['a', 'b'] });
  });

  it('skips a name that wants an object where an earlier one made a list', () => {
    const nested = toNested([
      ['cart.items[0].name', 'zero'],
      ['cart.items.note', 'mixed'],
    ]);
    expect(nested).toEqual({ cart: { items: [{ name: 'zero' }] } });
    expectPlainTree(nested);
  });

  it('keeps all-digit map keys as keys when the template says the bracket is a key', () => {
    const templates: Record<string, string> = {
      'customParameters[123]': 'customParameters[*]',
      'customParameters[456]': 'customParameters[*]',
      'cart.items[1].name': 'cart.items[n].name',
    };
    const nested = toNested(
      [
        ['customParameters[123]', 'a'],
        ['customParameters[456]', 'b'],
        ['cart.items[1].name', 'hat'],
      ],
      (name) => templates[name],
    );
    expect(nested).toEqual({ customParameters: { 123: 'a', 456: 'b' }, cart: { items: [{ name: 'hat' }] } });
    expect(Array.isArray((nested.customParameters as object))).toBe(false);
    expectPlainTree(nested);
  });

  it('keeps index-like names at the root as keys, not as an array', () => {
    const nested = toNested([
      ['0', 'a'],
      ['1', 'b'],
    ]);
    expect(Array.isArray(nested)).toBe(false);
    expect(nested).toEqual({ 0: 'a', 1: 'b' });
  });

  it('treats indexes with leading zeros, signs or exponents as keys', () => {
    for (const key of ['01', '-1', '1e3', '1.5', ' 1']) {
      const nested = toNested([[`list[${key}]`, 'v']]) as Record<string, unknown>;
      expect(Array.isArray(nested.list), key).toBe(false);
      expect(nested.list, key).toEqual({ [key]: 'v' });
    }
  });

  it('keeps a dot inside brackets as part of the key', () => {
    const nested = toNested([
      ['customParameters[my.param]', 'x'],
      ['customParameters[SHOPPER_a.b.c]', 'y'],
      ['threeDSecure.schemeData[CB-ITEMSNB]', '2'],
    ]);
    expect(nested).toEqual({
      customParameters: { 'my.param': 'x', 'SHOPPER_a.b.c': 'y' },
      threeDSecure: { schemeData: { 'CB-ITEMSNB': '2' } },
    });
    expectPlainTree(nested);
  });

  it('skips a name that conflicts with an earlier one, in either order', () => {
    expect(toNested([
      ['a', '1'],
      ['a.b', '2'],
    ])).toEqual({ a: '1' });
    expect(toNested([
      ['a.b', '2'],
      ['a', '1'],
    ])).toEqual({ a: { b: '2' } });
    expect(toNested([
      ['a[0]', 'x'],
      ['a[0].b', 'y'],
    ])).toEqual({ a: ['x'] });
    expect(toNested([
      ['a.b', '1'],
      ['a.b', '2'],
    ])).toEqual({ a: { b: '1' } });
  });

  it('skips names without segments', () => {
    expect(toNested([
      ['', 'x'],
      ['.', 'y'],
      ['..', 'z'],
    ])).toEqual({});
  });

  it.each(FORBIDDEN_NAMES())('skips the forbidden name %s and pollutes nothing', (name) => {
    const nested = toNested([
      [name, 'polluted'],
      ['ok', '1'],
    ]);
    expect(nested).toEqual({ ok: '1' });
    expectPlainTree(nested);
    expectNoPollution();
  });

  it('returns objects without prototype surprises: names of Object.prototype members are plain data', () => {
    const nested = toNested([
      ['hasOwnProperty', 'h'],
      ['toString', 't'],
      ['valueOf.x', 'v'],
      ['isPrototypeOf[0]', 'i'],
      ['__defineGetter__', 'd'],
      ['customer.hasOwnProperty', 'nested'],
    ]) as Record<string, unknown>;
    expect(nested.hasOwnProperty).toBe('h');
    expect(nested.toString).toBe('t');
    expect(nested.valueOf).toEqual({ x: 'v' });
    expect(nested.isPrototypeOf).toEqual(['i']);
    expect(nested.__defineGetter__).toBe('d');
    expect((nested.customer as Record<string, unknown>).hasOwnProperty).toBe('nested');
    expect(Object.keys(nested)).toEqual(['hasOwnProperty', 'toString', 'valueOf', 'isPrototypeOf', '__defineGetter__', 'customer']);
    expect(JSON.parse(JSON.stringify(nested))).toMatchObject({ hasOwnProperty: 'h', toString: 't' });
    expectPlainTree(nested);
    expectNoPollution();
  });

  it('reads no inherited member as an existing node', () => {
    // If a lookup fell through to Object.prototype, `constructor`/`toString` would look like existing
    // nodes and the names below would be dropped as conflicts.
    const nested = toNested([
      ['toString.a', '1'],
      ['valueOf[0]', '2'],
    ]);
    expect(nested).toEqual({ toString: { a: '1' }, valueOf: ['2'] });
  });

  it('nests what parseForm read', () => {
    const form = parseForm('cart.items[1].name=B&cart.items[0].name=A&customParameters[my.param]=x+y&__proto__[x]=1');
    expect(errorNames(form)).toEqual(['__proto__[x]']);
    expect(toNested(form.params)).toEqual({
      cart: { items: [{ name: 'A' }, { name: 'B' }] },
      customParameters: { 'my.param': 'x y' },
    });
    expectNoPollution();
  });
});

function FORBIDDEN_NAMES(): string[] {
  return [
    '__proto__',
    '__proto__.polluted',
    '__proto__[polluted]',
    'constructor.prototype.polluted',
    'constructor[prototype][polluted]',
    'a.__proto__.polluted',
    'a[__proto__][polluted]',
    'cart.items[0].__proto__',
    'cart.items[0].constructor.prototype.polluted',
    'x.prototype',
  ];
}
