/**
 * Mutations of a valid body, field by field (wrong types, missing and extra fields, boundary
 * numbers, huge strings, deep nesting, __proto__ / constructor / prototype keys, bad hex and
 * base64, keys of every wrong length, flipped bits in real ciphertexts) and of its bytes (invalid
 * UTF-8, truncation, JSON syntax errors, wrong Content-Type and Content-Encoding, bodies at and
 * over the limit, other methods and URL spellings).
 */
import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import { HEX_PATTERN, anyString, toBase64, toHex } from './arbitraries.ts';
import { jsonCase, raw, rawCase, serialize, type FuzzCase } from './cases.ts';
import { identityResolver, type JsonSchema, type SchemaResolver } from './json-schema.ts';

type Path = (string | number)[];

/** A place in a body that a mutation can aim at: a present value, or a declared property that is absent. */
export interface Slot {
  path: Path;
  /** JSON pointer with array indices as `*`, the form of hints and lengths. */
  pointer: string;
  schema: JsonSchema | undefined;
  present: boolean;
  value: unknown;
}

export interface MutationContext {
  url: string;
  resolve: SchemaResolver;
  /** BODY_LIMIT_BYTES of the app under test. */
  bodyLimit: number;
  /** Right byte lengths of key-like fields, by pointer. */
  lengths: Readonly<Record<string, readonly number[]>>;
  /** How deep the deep-nesting mutation goes (1000 in CI; more in the long run). */
  maxDepth: number;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function slotsOf(
  body: unknown,
  schema: JsonSchema | undefined,
  resolve: SchemaResolver = identityResolver,
): Slot[] {
  const slots: Slot[] = [];
  const visit = (value: unknown, node: JsonSchema | undefined, path: Path, pointer: string, present: boolean) => {
    slots.push({ path, pointer: pointer === '' ? '/' : pointer, schema: node, present, value });
    if (!present) return;
    const resolved = node === undefined ? undefined : resolve(node);
    if (isObject(value)) {
      const declared = resolved?.properties ?? {};
      for (const name of new Set([...Object.keys(declared), ...Object.keys(value)])) {
        visit(value[name], declared[name], [...path, name], `${pointer}/${name}`, Object.hasOwn(value, name));
      }
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, resolved?.items, [...path, index], `${pointer}/*`, true));
    }
  };
  visit(body, schema, [], '', true);
  return slots;
}

function setAt(body: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let node = copy;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  node[path.at(-1)!] = value;
  return copy;
}

function deleteAt(body: unknown, path: Path): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let node = copy;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (Array.isArray(node)) node.splice(Number(last), 1);
  else delete node[last];
  return copy;
}

/** Adds an own property (even `__proto__`, which assignment would treat as the prototype setter). */
function withKey(body: unknown, path: Path, key: string, value: unknown): unknown {
  const copy = structuredClone(body);
  let node = copy as Record<string | number, unknown>;
  for (const step of path) node = node[step] as Record<string | number, unknown>;
  Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

const kindOf = (slot: Slot, resolve: SchemaResolver) => {
  const schema = slot.schema === undefined ? undefined : resolve(slot.schema);
  if (schema === undefined) return 'unknown';
  if (schema.enum !== undefined || schema.const !== undefined) return 'enum';
  if (schema.pattern === HEX_PATTERN) return 'hex';
  if (typeof schema.description === 'string' && /\bbase64\b/.test(schema.description) && schema.type === 'string')
    return 'base64';
  return typeof schema.type === 'string' ? schema.type : 'unknown';
};

// ---------------------------------------------------------------------------------------------
// Values

const OTHER_TYPES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  '',
  'x',
  [],
  {},
  ['a'],
  { a: 1 },
  [null],
  '0',
  'true',
  'null',
];

/** Numbers at and around the schema's bounds, and the ones that break naive code. */
function boundaryNumbers(schema: JsonSchema | undefined): fc.Arbitrary<unknown> {
  const min = schema?.minimum ?? 0;
  const max = schema?.maximum ?? 2 ** 31;
  const numbers = [
    0,
    -1,
    1,
    min - 1,
    min,
    min + 1,
    max - 1,
    max,
    max + 1,
    min + 0.5,
    max - 0.5,
    2 ** 31 - 1,
    2 ** 31,
    2 ** 32,
    2 ** 32 + 1,
    2 ** 53 - 1,
    2 ** 53,
    -(2 ** 53),
    1e308,
    -1e308,
    5e-324,
    -5e-324,
    0.1,
    1e21,
    Number.MAX_VALUE,
    max * 2 ** 20,
  ];
  const text = [
    '1e400',
    '-1e400',
    '9007199254740993',
    '1.0',
    '1E2',
    '-0',
    '-0.0',
    '1e-400',
    `${max}.0`,
    `${min}e0`,
    '123456789012345678901234567890123456789',
  ];
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...numbers) },
    { weight: 2, arbitrary: fc.constantFrom(...text).map(raw) },
    { weight: 1, arbitrary: fc.constantFrom('NaN', 'Infinity', '-Infinity', '1', `${max}`, '0x10', '1e3', ' 1', '') },
  );
}

/** Nested arrays or objects, written raw (a JavaScript value that deep would overflow JSON.stringify). */
function deepNesting(maxDepth: number): fc.Arbitrary<string> {
  const depths = fc.oneof(fc.constantFrom(2, 31, 32, 33, 64, 1000, maxDepth), fc.integer({ min: 2, max: maxDepth }));
  return fc.tuple(depths, fc.constantFrom('array', 'object', 'mixed', 'unclosed')).map(([depth, shape]) => {
    switch (shape) {
      case 'array':
        return raw(`${'['.repeat(depth)}${']'.repeat(depth)}`);
      case 'object':
        return raw(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
      case 'mixed':
        return raw(`${'[{"a":'.repeat(depth)}0${'}]'.repeat(depth)}`);
      default:
        return raw('['.repeat(depth));
    }
  });
}

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/** The key as a raw JSON string, spelled out or hidden behind \u escapes (each way the parser can see it). */
function protoKeySpelling(): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom(...PROTO_KEYS), fc.constantFrom('plain', 'escaped', 'partial', 'upper-escape'))
    .map(([key, spelling]) => {
      const escape = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
      switch (spelling) {
        case 'plain':
          return key;
        case 'escaped':
          return raw(
            `"${[...key].map((char) => (char === '_' || char === 'c' || char === 'p' ? escape(char) : char)).join('')}"`,
          );
        case 'partial':
          return raw(`"${escape(key[0]!)}${key.slice(1)}"`);
        default:
          return raw(`"${[...key].map((char) => escape(char).toUpperCase().replace('\\U', '\\u')).join('')}"`);
      }
    });
}

const PROTO_VALUES: unknown[] = [
  {},
  { polluted: true },
  { isAdmin: true, toString: 1 },
  'x',
  null,
  [],
  { prototype: { polluted: true } },
  { __fuzz: 1 },
];

function hexOfLength(length: number, fill: 'random' | number): fc.Arbitrary<string> {
  if (fill === 'random') return fc.uint8Array({ minLength: length, maxLength: length }).map(toHex);
  return fc.constant(Buffer.alloc(length, fill).toString('hex'));
}

/** Byte lengths around the right ones, and anything from 0 to a little past the longest. */
function wrongLengths(right: readonly number[]): fc.Arbitrary<number> {
  const longest = Math.max(64, ...right);
  const near = right
    .flatMap((length) => [length - 2, length - 1, length + 1, length + 2, length * 2, length >> 1])
    .filter((length) => length >= 0 && !right.includes(length));
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(0, 1, ...near) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: longest + 16 }) },
  );
}

/** Keys of the right length that are not keys: all zeros, all ones, a bad SEC1 prefix. */
function degenerateKey(length: number): fc.Arbitrary<string> {
  return fc.constantFrom(
    Buffer.alloc(length, 0).toString('hex'),
    Buffer.alloc(length, 0xff).toString('hex'),
    Buffer.concat([Buffer.from([1]), Buffer.alloc(Math.max(0, length - 1), 0)])
      .subarray(0, length)
      .toString('hex'),
    Buffer.concat([Buffer.from([4]), Buffer.alloc(Math.max(0, length - 1), 0xff)])
      .subarray(0, length)
      .toString('hex'),
    Buffer.concat([Buffer.from([2]), Buffer.alloc(Math.max(0, length - 1), 0xff)])
      .subarray(0, length)
      .toString('hex'),
  );
}

function badHex(value: string): fc.Arbitrary<string> {
  const valid = value.length > 0 ? value : '00ff';
  return fc.oneof(
    fc.constant(`${valid}a`),
    fc.constant(valid.slice(1)),
    fc
      .tuple(
        fc.nat({ max: valid.length }),
        fc.constantFrom('g', 'zz', ' ', '\n', '-', ':', '\u0660', '\uff10', '\u0000', '0x', 'é', '\ud800'),
      )
      .map(([at, bad]) => valid.slice(0, at) + bad + valid.slice(at)),
    fc.constant(`0x${valid}`),
    fc.constant(valid.replace(/(..)/g, '$1 ').trim()),
    fc.constant(Buffer.from(valid, 'hex').toString('base64')),
    fc.constant(` ${valid}`),
  );
}

function badBase64(value: string): fc.Arbitrary<string> {
  const valid = value.length > 0 ? value : 'AAAA';
  const bytes = Buffer.from(valid, 'base64');
  const flipLastBits = () => {
    // Nonzero padding bits: the same bytes, a second spelling (RFC 4648 §3.5).
    const match = /([A-Za-z0-9+/])(=+)$/.exec(valid);
    if (match === null) return `${valid}=`;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const index = alphabet.indexOf(match[1]!);
    return `${valid.slice(0, match.index)}${alphabet[(index + 1) % 64]}${match[2]}`;
  };
  return fc.oneof(
    fc.constant(bytes.toString('base64url')),
    fc.constant(valid.replace(/=+$/, '')),
    fc.constant(`${valid}=`),
    fc.constant(`${valid}====`),
    fc.constant(valid.replace(/(.{4})/g, '$1\n')),
    fc.constant(flipLastBits()),
    fc.constant(`data:application/octet-stream;base64,${valid}`),
    fc.constant(bytes.toString('hex')),
    fc.constant(`${valid.slice(0, -1)}`),
    fc.constant(`A${valid}`),
    fc.constant(`${valid.slice(0, 2)}=${valid.slice(3)}`),
    fc.constant(valid.replaceAll('+', '-').replaceAll('/', '_')),
    fc
      .tuple(fc.nat({ max: valid.length }), fc.constantFrom('*', ' ', '\u0000', 'é', '.', '\\'))
      .map(([at, bad]) => valid.slice(0, at) + bad + valid.slice(at)),
  );
}

/** A real binary value (hex or base64), decoded, altered (a flipped bit, bytes cut or added) and re-encoded. */
function alteredBytes(value: string, encoding: 'hex' | 'base64'): fc.Arbitrary<string> {
  const bytes = encoding === 'hex' ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  const encode = (out: Buffer) => (encoding === 'hex' ? out.toString('hex') : out.toString('base64'));
  if (bytes.byteLength === 0) return fc.constant(encode(Buffer.alloc(1)));
  return fc.oneof(
    fc.tuple(fc.nat({ max: bytes.byteLength - 1 }), fc.integer({ min: 0, max: 7 })).map(([at, bit]) => {
      const out = Buffer.from(bytes);
      out[at] = out[at]! ^ (1 << bit);
      return encode(out);
    }),
    fc
      .integer({ min: 1, max: Math.min(64, bytes.byteLength) })
      .map((cut) => encode(bytes.subarray(0, bytes.byteLength - cut))),
    fc.uint8Array({ minLength: 1, maxLength: 32 }).map((extra) => encode(Buffer.concat([bytes, extra]))),
    fc.constant(encode(Buffer.from(bytes).reverse())),
  );
}

/**
 * PEM and OpenPGP armor, broken the ways a parser meets: labels swapped, the block cut, the
 * checksum gone, CRLF, garbage around it, two blocks, and (the deep ones) the same labels around
 * random bytes or around the real bytes with one of them altered, which reaches the DER and packet
 * parsers themselves.
 */
function armorMutations(value: string): fc.Arbitrary<string> {
  const lines = value.split('\n');
  const begin = lines.findIndex((line) => line.startsWith('-----BEGIN '));
  const end = lines.findIndex((line) => line.startsWith('-----END '));
  const bodyStart =
    lines.indexOf('', begin) !== -1 && lines.indexOf('', begin) < end ? lines.indexOf('', begin) + 1 : begin + 1;
  const bodyLines = lines.slice(bodyStart, end).filter((line) => !line.startsWith('='));
  const bytes = Buffer.from(bodyLines.join(''), 'base64');
  const rebuild = (data: Buffer) =>
    [...lines.slice(0, bodyStart), ...(data.toString('base64').match(/.{1,64}/g) ?? []), ...lines.slice(end)].join(
      '\n',
    );
  const swaps: [RegExp, string][] = [
    [/PRIVATE/g, 'PUBLIC'],
    [/PUBLIC/g, 'PRIVATE'],
    [/MESSAGE/g, 'SIGNATURE'],
    [/SIGNATURE/g, 'MESSAGE'],
    [/PRIVATE KEY/g, 'EC PRIVATE KEY'],
    [/PRIVATE KEY/g, 'ENCRYPTED PRIVATE KEY'],
    [/-----BEGIN [A-Z ]+-----/, '-----BEGIN CERTIFICATE-----'],
  ];
  return fc.oneof(
    fc.constantFrom(
      value.slice(0, value.length >> 1),
      lines.filter((line) => !line.startsWith('-----END ')).join('\n'),
      lines.filter((line) => !/^=[A-Za-z0-9+/]{4}$/.test(line)).join('\n'),
      value.replaceAll('\n', '\r\n'),
      value.replaceAll('\n', ''),
      `junk before\n${value}`,
      `${value}\njunk after`,
      `${value}${value}`,
      [...lines.slice(0, begin + 1), 'Version: fuzz', 'Comment: x'.repeat(200), ...lines.slice(begin + 1)].join('\n'),
      [...lines.slice(0, bodyStart), ...lines.slice(end)].join('\n'),
      ...swaps.map(([pattern, replacement]) => value.replace(pattern, replacement)),
    ),
    fc.uint8Array({ minLength: 0, maxLength: 600 }).map((random) => rebuild(Buffer.from(random))),
    bytes.byteLength === 0
      ? fc.constant(value)
      : fc.tuple(fc.nat({ max: bytes.byteLength - 1 }), fc.integer({ min: 1, max: 255 })).map(([at, xor]) => {
          const altered = Buffer.from(bytes);
          altered[at] = altered[at]! ^ xor;
          return rebuild(altered);
        }),
    bytes.byteLength === 0
      ? fc.constant(value)
      : fc.integer({ min: 1, max: bytes.byteLength }).map((cut) => rebuild(bytes.subarray(0, bytes.byteLength - cut))),
  );
}

const WEIRD_TEXT = [
  '\ud800',
  'a\udc00b',
  '\udbff\udfff',
  '\u0000',
  '\uffff',
  '\ufffe',
  '\u202e\u0041',
  'e\u0301',
  '\u00e9',
  '😀',
  '\ufeffabc',
  'ﬀ',
  '\u2028\u2029',
  '\\',
  '"',
  '%00',
  '${x}',
  '<script>',
];

/** A string whose UTF-8 form ends the body `bytesBefore + bytesAfter` at `limit + delta` bytes. */
function sizedString(unit: string, unitBytes: number, room: number, delta: number): string {
  const count = Math.max(0, Math.floor((room + delta) / unitBytes));
  return unit.repeat(count);
}

// ---------------------------------------------------------------------------------------------
// Field mutations

/** Every field mutation that applies to `slot` of `body`. */
function fieldMutations(body: unknown, slot: Slot, context: MutationContext): fc.Arbitrary<FuzzCase>[] {
  const { url, resolve } = context;
  const at = slot.pointer;
  const kind = kindOf(slot, resolve);
  const make = (label: string, expect?: FuzzCase['expect']) => (value: unknown) =>
    jsonCase(`${label} ${at}`, url, setAt(body, slot.path, value), expect);
  const out: fc.Arbitrary<FuzzCase>[] = [];
  out.push(fc.constantFrom(...OTHER_TYPES).map(make('wrong-type')));
  if (slot.present && slot.path.length > 0)
    out.push(fc.constant(jsonCase(`missing ${at}`, url, deleteAt(body, slot.path))));
  if (slot.path.length > 0)
    out.push(
      boundaryNumbers(slot.schema === undefined ? undefined : resolve(slot.schema)).map(make('boundary-number')),
    );
  out.push(deepNesting(context.maxDepth).map(make('deep-nesting')));
  if (kind === 'string' || kind === 'hex' || kind === 'base64' || kind === 'enum' || kind === 'unknown') {
    out.push(fc.constantFrom(...WEIRD_TEXT).map(make('weird-text')));
    out.push(anyString(0, 300).map(make('any-string')));
  }
  if (typeof slot.value === 'string' && slot.value.includes('-----BEGIN ')) {
    // Weighted: the parsers behind an armored field are where the most code is.
    const armor = armorMutations(slot.value).map(make('armor'));
    out.push(armor, armor, armor);
  }
  if (kind === 'string' || kind === 'hex' || kind === 'base64' || kind === 'unknown') {
    const room = context.bodyLimit - Buffer.byteLength(serialize(setAt(body, slot.path, '')));
    const units: [string, number][] = [
      ['a', 1],
      ['0f', 2],
      ['€', 3],
      ['😀', 4],
      ['\\', 2],
      ['\u0001', 6],
    ];
    out.push(
      fc
        .tuple(fc.constantFrom(...units), fc.constantFrom(-1, 0, 1, context.bodyLimit))
        .map(([[unit, bytes], delta]) => {
          const value = sizedString(unit, bytes, room, delta);
          const size = Buffer.byteLength(serialize(setAt(body, slot.path, value)));
          return make(
            `huge-string(${size} B)`,
            size > context.bodyLimit ? { status: 413, code: 'PAYLOAD_TOO_LARGE' } : undefined,
          )(value);
        }),
    );
  }
  const lengths = context.lengths[at];
  if (kind === 'hex' || lengths !== undefined) {
    const current = typeof slot.value === 'string' && /^(?:[0-9a-fA-F]{2})*$/.test(slot.value) ? slot.value : '';
    const right = lengths ?? [current.length / 2];
    out.push(badHex(current).map(make('bad-hex')));
    out.push(
      fc
        .tuple(wrongLengths(right), fc.constantFrom<'random' | number>('random', 'random', 0, 0xff))
        .chain(([length, fill]) => hexOfLength(length, fill))
        .map(make('wrong-length')),
    );
    out.push(
      fc
        .constantFrom(...right)
        .chain(degenerateKey)
        .map(make('degenerate-key')),
    );
    if (current.length > 0) out.push(alteredBytes(current, 'hex').map(make('altered-bytes')));
  }
  if (kind === 'base64') {
    const current = typeof slot.value === 'string' ? slot.value : '';
    out.push(badBase64(current).map(make('bad-base64')));
    out.push(
      wrongLengths(lengths ?? [Buffer.from(current, 'base64').byteLength])
        .chain((length) => fc.uint8Array({ minLength: length, maxLength: length }))
        .map((bytes) => make('wrong-length')(toBase64(bytes))),
    );
    if (current.length > 0) out.push(alteredBytes(current, 'base64').map(make('altered-bytes')));
  }
  if (kind === 'enum') {
    const values = resolve(slot.schema!).enum ?? [];
    out.push(
      fc
        .constantFrom(
          ...values
            .map(String)
            .flatMap((value) => [
              value.toUpperCase(),
              ` ${value}`,
              `${value}\u0000`,
              value.replaceAll('-', '_'),
              value.replace(/\d+/, '1'),
            ]),
          'md5',
          'sha1',
          'none',
          '',
          'utf-8',
          'base64url',
        )
        .map(make('near-enum')),
    );
  }
  if (kind === 'array' && Array.isArray(slot.value)) {
    const items = slot.value;
    const schema = resolve(slot.schema!);
    out.push(fc.constant(make('empty-array')([])));
    if (items.length > 0) {
      out.push(fc.constant(make('duplicated-items')([...items, ...items])));
      out.push(
        fc.constant(
          make('too-many-items')(
            Array.from({ length: (schema.maxItems ?? 100) + 1 }, (_, index) => items[index % items.length]),
          ),
        ),
      );
    }
    out.push(
      fc.integer({ min: 1000, max: 20000 }).map((count) => make('long-array')(Array.from({ length: count }, () => 0))),
    );
  }
  if (isObject(slot.value)) {
    out.push(
      fc
        .tuple(
          fc.oneof(
            fc.constantFrom(
              'extra',
              'Algorithm',
              'ALGORITHM',
              'algorithm ',
              '',
              ' ',
              'data\u0000',
              'toString',
              'hasOwnProperty',
              '$ref',
            ),
            anyString(0, 20),
          ),
          fc.constantFrom(...OTHER_TYPES),
        )
        .filter(([key]) => !Object.hasOwn(slot.value as object, key))
        .map(([key, value]) => jsonCase(`extra-field ${at}`, url, withKey(body, slot.path, key, value))),
    );
    out.push(
      fc.constantFrom(10_000, 50_000).map((count) => {
        const many = Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, index]));
        return jsonCase(`many-keys ${at}`, url, setAt(body, slot.path, { ...(slot.value as object), ...many }));
      }),
    );
    out.push(
      fc
        .constantFrom(1000, 100_000)
        .map((length) => jsonCase(`long-key ${at}`, url, withKey(body, slot.path, 'k'.repeat(length), 1))),
    );
    out.push(
      fc.tuple(protoKeySpelling(), fc.constantFrom(...PROTO_VALUES)).map(([key, value]) =>
        jsonCase(`proto-key ${at}`, url, withKey(body, slot.path, key, value), {
          status: 400,
          code: 'MALFORMED_JSON',
        }),
      ),
    );
  }
  return out;
}

/** Mutations of one field of `body`, aimed at any of its slots. */
export function mutateFields(
  body: unknown,
  schema: JsonSchema | undefined,
  context: MutationContext,
): fc.Arbitrary<FuzzCase> {
  const slots = slotsOf(body, schema, context.resolve);
  return fc.constantFrom(...slots).chain((slot) => fc.oneof(...fieldMutations(body, slot, context)));
}

// ---------------------------------------------------------------------------------------------
// Byte-level mutations

const INVALID_UTF8: number[][] = [
  [0xff],
  [0xfe],
  [0xc0, 0x80],
  [0xc1, 0xbf],
  [0xe0, 0x80, 0x80],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0x80],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
];

const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json-patch+json',
  'application/jsonx',
  'application/',
  '*/*',
  'json',
  'application/octet-stream',
  'x'.repeat(2000),
  'text/json',
  'application/javascript',
];
const ODD_JSON_CONTENT_TYPES = [
  'APPLICATION/JSON',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json;charset=iso-8859-1',
  'application/json; foo=bar',
  'application/json ; charset=UTF-8',
];

const SYNTAX_ERRORS: ((text: string) => string)[] = [
  (text) => text.replace(/}$/, ',}'),
  (text) => `${text}${text}`,
  (text) => `${text} x`,
  (text) => `/* comment */${text}`,
  (text) => text.replaceAll('"', "'"),
  (text) => text.replace(/"([A-Za-z]+)":/, '$1:'),
  (text) => text.replace(/:(\d)/, ':0$1'),
  (text) => text.replace(/:"/, ':NaN,"x":"'),
  (text) => text.replace(/"([^"\\]*)"/, '"$1\u0001"'),
  (text) => text.replace(/"([^"\\]*)"/, '"$1\n"'),
  (text) => text.replace(/"([^"\\]*)"/, '"$1\\uZZZZ"'),
  (text) => text.replace(/"([^"\\]*)"/, '"$1\\x41"'),
  (text) => text.replace(/"([^"\\]*)"/, '"$1\\'),
  (text) => `[${text}`,
  (text) => text.slice(1),
];

/** Mutations of the serialized body. */
export function mutateBytes(body: unknown, context: MutationContext): fc.Arbitrary<FuzzCase> {
  const { url, bodyLimit } = context;
  const text = serialize(body);
  const bytes = Buffer.from(text, 'utf8');
  const malformed = { status: 400, code: 'MALFORMED_JSON' };
  // Positions just after an opening quote: invalid bytes inside a string, where a lenient decoder would hide them.
  const quotes = [...text.matchAll(/"/g)].map((match) => Buffer.byteLength(text.slice(0, (match.index ?? 0) + 1)));
  const mutations: fc.Arbitrary<FuzzCase>[] = [
    fc
      .integer({ min: 0, max: Math.max(0, bytes.byteLength - 1) })
      .map((cut) => rawCase(`truncated at ${cut}`, url, bytes.subarray(0, cut), undefined, malformed)),
    fc
      .tuple(
        fc.constantFrom(...INVALID_UTF8),
        fc.oneof(fc.constantFrom(...(quotes.length > 0 ? quotes : [0])), fc.nat({ max: bytes.byteLength })),
      )
      .map(([bad, at]) =>
        rawCase(
          'invalid-utf8',
          url,
          Buffer.concat([bytes.subarray(0, at), Buffer.from(bad), bytes.subarray(at)]),
          undefined,
          malformed,
        ),
      ),
    fc
      .constantFrom(...WRONG_CONTENT_TYPES)
      .map((type) =>
        rawCase(
          `content-type ${type.slice(0, 40)}`,
          url,
          bytes,
          { 'content-type': type },
          { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
        ),
      ),
    fc
      .constantFrom(...ODD_JSON_CONTENT_TYPES)
      .map((type) => rawCase(`content-type ${type}`, url, bytes, { 'content-type': type })),
    fc.constant(rawCase('no content-type', url, bytes, {}, { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' })),
    fc
      .constantFrom('gzip', 'br', 'deflate', 'x-gzip', 'gzip, identity', 'unknown')
      .map((encoding) =>
        rawCase(
          `content-encoding ${encoding}`,
          url,
          encoding.includes('gzip') ? gzipSync(bytes) : bytes,
          { 'content-type': 'application/json', 'content-encoding': encoding },
          { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
        ),
      ),
    fc.constant(
      rawCase('content-encoding identity', url, bytes, {
        'content-type': 'application/json',
        'content-encoding': 'identity',
      }),
    ),
    fc
      .constantFrom(...SYNTAX_ERRORS)
      .map((breakIt) => rawCase('syntax-error', url, Buffer.from(breakIt(text), 'utf8'))),
    fc
      .constantFrom('', ' ', '\n', '\ufeff', '\u0000')
      .map((only) => rawCase(`only ${JSON.stringify(only)}`, url, Buffer.from(only, 'utf8'), undefined, malformed)),
    fc
      .constantFrom('null', '[]', '"text"', '0', 'true', '{}', '[{}]', `[${text}]`)
      .map((other) => rawCase(`top-level ${other.slice(0, 12)}`, url, Buffer.from(other, 'utf8'))),
    fc.constant(rawCase('no body', url, undefined, {})),
    // Compression of the answer (big ones: signatures, keys, the 413s are small): any encoding the client asks for, or refuses.
    fc
      .constantFrom(
        'gzip',
        'br',
        'deflate',
        'gzip, deflate, br, zstd',
        'identity;q=0',
        '*;q=0',
        'br;q=abc',
        ',,,',
        'x-unknown',
      )
      .map((accept) =>
        rawCase(`accept-encoding ${accept}`, url, bytes, {
          'content-type': 'application/json',
          'accept-encoding': accept,
        }),
      ),
    fc.constant(rawCase('utf8-bom', url, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]))),
    fc.constantFrom('utf16le', 'utf16be').map((encoding) => {
      const utf16 = Buffer.from(text, 'utf16le');
      if (encoding === 'utf16be') utf16.swap16();
      return rawCase(`${encoding} body`, url, utf16, undefined, { status: 400 });
    }),
    fc.constantFrom(-1, 0, 1).map((delta) => {
      // Whitespace padding keeps the JSON valid: only the size decides.
      const padded = Buffer.concat([bytes, Buffer.alloc(Math.max(0, bodyLimit - bytes.byteLength + delta), 0x20)]);
      return rawCase(
        `padded to ${padded.byteLength} B`,
        url,
        padded,
        undefined,
        padded.byteLength > bodyLimit ? { status: 413, code: 'PAYLOAD_TOO_LARGE' } : undefined,
      );
    }),
    fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH').map((method) => {
      const withBody = method === 'PUT' || method === 'PATCH';
      return rawCase(
        `method ${method}`,
        url,
        withBody ? bytes : undefined,
        withBody ? { 'content-type': 'application/json' } : {},
        { status: 405, code: 'METHOD_NOT_ALLOWED' },
        method,
      );
    }),
    fc
      .constantFrom(
        `${url}/`,
        `${url}?x=1`,
        `${url}?__proto__[a]=1&constructor=1`,
        url.toUpperCase(),
        `${url}%00`,
        `${url}%zz`,
        `${url}/..`,
        `/${url}`,
        `${url}?${'a'.repeat(5000)}`,
        `${url}#frag`,
        url.replace('/v', '/V'),
      )
      .map((variant) => rawCase(`url ${variant.slice(0, 60)}`, variant, bytes)),
  ];
  return fc.oneof(...mutations);
}
