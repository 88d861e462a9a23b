/**
 * From a route's JSON Schema to a fast-check arbitrary of bodies that satisfy it: enums, lengths
 * within minLength/maxLength, integers within minimum/maximum (their bounds favoured), arrays
 * within minItems/maxItems, the declared hex pattern, standard base64 where the field says so, and
 * text fields written in the body's own `encoding` (hex or base64 text for those, UTF-8 otherwise).
 *
 * Field hints (smart values: keys of the right length for the algorithm, real key pairs, real
 * ciphertexts) replace the schema's generator at a JSON pointer most of the time; array indices
 * in a pointer are written `*` (`/recipients/*\/publicKey`).
 */
import fc from 'fast-check';
import { identityResolver, type JsonSchema, type SchemaResolver } from './json-schema.ts';

export const HEX_PATTERN = '^(?:[0-9a-fA-F]{2})*$';

/** Strings and arrays are generated this long at most (a bound far above it is still reached by the mutations). */
export const GENERATED_STRING_CAP = 96;
export const GENERATED_ARRAY_CAP = 4;

export type Hint = fc.Arbitrary<unknown>;

export interface BodyOptions {
  resolve?: SchemaResolver;
  /** Smart values by JSON pointer; used three times in four where present. */
  hints?: ReadonlyMap<string, Hint>;
}

export function bytes(minLength: number, maxLength: number): fc.Arbitrary<Uint8Array> {
  return fc.uint8Array({ minLength, maxLength });
}

export const toHex = (value: Uint8Array) => Buffer.from(value).toString('hex');
export const toBase64 = (value: Uint8Array) => Buffer.from(value).toString('base64');

export function hexOf(minBytes: number, maxBytes: number): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: bytes(minBytes, maxBytes).map(toHex) },
    // Either case is accepted on input.
    { weight: 1, arbitrary: bytes(minBytes, maxBytes).map((value) => toHex(value).toUpperCase()) },
  );
}

/** Any string: ASCII, full Unicode (astral planes included), and lone surrogates now and then. */
export function anyString(minLength = 0, maxLength = GENERATED_STRING_CAP): fc.Arbitrary<string> {
  const constraints = { minLength, maxLength };
  return fc
    .oneof(
      { weight: 4, arbitrary: fc.string({ ...constraints, unit: 'grapheme-ascii' }) },
      { weight: 2, arbitrary: fc.string({ ...constraints, unit: 'grapheme' }) },
      { weight: 1, arbitrary: fc.string({ ...constraints, unit: 'binary' }) },
      {
        weight: 1,
        arbitrary: fc.string({
          ...constraints,
          unit: fc.constantFrom('\ud800', '\udfff', '\u0000', '\ufeff', '"', '\\', '\u2028'),
        }),
      },
    )
    .filter((value) => value.length >= minLength && value.length <= maxLength);
}

const isTextField = (schema: JsonSchema) =>
  typeof schema.description === 'string' && schema.description.includes('in `encoding`');
const isBase64Field = (schema: JsonSchema) =>
  typeof schema.description === 'string' && /\bbase64\b/.test(schema.description) && schema.pattern === undefined;

/** A text field's value in the body's encoding: UTF-8 text, or bytes as hex or base64. */
function textIn(encoding: unknown, minLength: number, maxLength: number): fc.Arbitrary<string> {
  if (encoding === 'hex') return hexOf(Math.ceil(minLength / 2), Math.floor(maxLength / 2));
  if (encoding === 'base64') {
    return bytes(Math.ceil((minLength * 3) / 4), Math.floor((maxLength * 3) / 4))
      .map(toBase64)
      .filter((value) => value.length >= minLength && value.length <= maxLength);
  }
  return anyString(minLength, maxLength);
}

/**
 * Characters that generated pattern strings are drawn from: ASCII, Latin-1, a little Greek,
 * Cyrillic, CJK, a combining mark and astral emoji.
 */
const PRACTICAL_ALPHABET = [
  ...Array.from({ length: 0x7f - 0x20 }, (_, index) => String.fromCodePoint(0x20 + index)),
  ...Array.from({ length: 0x100 - 0xa0 }, (_, index) => String.fromCodePoint(0xa0 + index)),
  'α',
  'Ω',
  'ж',
  'Я',
  '中',
  '文',
  '\u0301',
  '\u200b',
  '\u2028',
  '😀',
  '𝄞',
  '\u{10ffff}',
];

const escapeInClass = (char: string) => (/[\\\][^-]/.test(char) ? `\\${char}` : char);

/**
 * The pattern with each bracket expression that uses a Unicode property (`[^\p{C}\p{Z}@]`)
 * replaced by the explicit set of practical characters it accepts. Every string matching the
 * result matches the original; fast-check's own translation of such a class draws from all of
 * Unicode, where most code points are unassigned (\p{Cn}), and takes seconds per value.
 */
export function practicalPattern(pattern: string): string {
  return pattern.replace(/\[(?:\\.|[^\]\\])*\]/g, (bracket) => {
    if (!bracket.includes('\\p{') && !bracket.includes('\\P{')) return bracket;
    const accepts = new RegExp(`^${bracket}$`, 'u');
    return `[${PRACTICAL_ALPHABET.filter((char) => accepts.test(char))
      .map(escapeInClass)
      .join('')}]`;
  });
}

function integerIn(schema: JsonSchema): fc.Arbitrary<number> {
  const min = schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : (schema.minimum ?? -(2 ** 31));
  const max = schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : (schema.maximum ?? 2 ** 31);
  return fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
    {
      weight: 3,
      arbitrary: fc.integer({
        min: Math.max(min, Number.MIN_SAFE_INTEGER),
        max: Math.min(max, Number.MAX_SAFE_INTEGER),
      }),
    },
  );
}

function stringIn(schema: JsonSchema, encoding: unknown): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? GENERATED_STRING_CAP, GENERATED_STRING_CAP));
  if (schema.pattern === HEX_PATTERN) return hexOf(Math.ceil(minLength / 2), Math.floor(maxLength / 2));
  if (schema.pattern !== undefined) {
    return fc
      .stringMatching(new RegExp(practicalPattern(schema.pattern), 'u'))
      .filter((value) => value.length >= minLength && value.length <= maxLength);
  }
  if (isTextField(schema)) return textIn(encoding, minLength, maxLength);
  if (isBase64Field(schema)) {
    return fc.oneof(
      {
        weight: 3,
        arbitrary: bytes(0, Math.floor((maxLength * 3) / 4))
          .map(toBase64)
          .filter((value) => value.length >= minLength && value.length <= maxLength),
      },
      { weight: 1, arbitrary: anyString(minLength, maxLength) },
    );
  }
  return anyString(minLength, maxLength);
}

/** The schema's own type, or the one its enum or const implies. */
function typeOfSchema(schema: JsonSchema): string | undefined {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type[0];
  if (schema.properties !== undefined) return 'object';
  return undefined;
}

/**
 * Values that satisfy `schema`. `pointer` is where the value sits in the body (for hints);
 * `encoding` is the `encoding` of the enclosing object, for its text fields.
 */
export function arbitraryFor(
  schema: JsonSchema,
  options: BodyOptions = {},
  pointer = '',
  encoding: unknown = undefined,
): fc.Arbitrary<unknown> {
  const resolve = options.resolve ?? identityResolver;
  const node = resolve(schema);
  const fromSchema = schemaArbitrary(node, options, pointer, encoding);
  const hint = options.hints?.get(pointer === '' ? '/' : pointer);
  return hint === undefined
    ? fromSchema
    : fc.oneof({ weight: 3, arbitrary: hint }, { weight: 1, arbitrary: fromSchema });
}

function schemaArbitrary(
  node: JsonSchema,
  options: BodyOptions,
  pointer: string,
  encoding: unknown,
): fc.Arbitrary<unknown> {
  if (node.const !== undefined) return fc.constant(node.const);
  if (node.enum !== undefined) return fc.constantFrom(...node.enum);
  const branches = node.anyOf ?? node.oneOf;
  if (branches !== undefined)
    return fc.oneof(...branches.map((branch) => arbitraryFor(branch, options, pointer, encoding)));
  if (node.allOf !== undefined) {
    if (node.allOf.length !== 1)
      throw new Error(`${pointer || '/'}: allOf with ${node.allOf.length} parts is not supported`);
    return arbitraryFor(node.allOf[0]!, options, pointer, encoding);
  }
  switch (typeOfSchema(node)) {
    case 'string':
      return stringIn(node, encoding);
    case 'integer':
      return integerIn(node);
    case 'number':
      return fc.oneof(
        integerIn(node),
        fc.double({ min: node.minimum ?? -1e9, max: node.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true }),
      );
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      if (node.items === undefined) throw new Error(`${pointer || '/'}: an array without items`);
      const minLength = node.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(node.maxItems ?? GENERATED_ARRAY_CAP, GENERATED_ARRAY_CAP));
      return fc.array(arbitraryFor(node.items, options, `${pointer}/*`, encoding), { minLength, maxLength });
    }
    case 'object':
      return objectArbitrary(node, options, pointer);
    default:
      throw new Error(
        `${pointer || '/'}: cannot generate values for a schema without a type (${JSON.stringify(node).slice(0, 120)})`,
      );
  }
}

/**
 * Required properties always, optional ones half the time. When the object has an `encoding`
 * property, it is drawn first and the text fields follow it.
 */
function objectArbitrary(
  node: JsonSchema,
  options: BodyOptions,
  pointer: string,
): fc.Arbitrary<Record<string, unknown>> {
  const properties = node.properties ?? {};
  const required = new Set(node.required ?? []);
  const encodingSchema = properties.encoding;
  const build = (encoding: unknown) => {
    const fields: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, child] of Object.entries(properties)) {
      fields[name] =
        name === 'encoding' ? fc.constant(encoding) : arbitraryFor(child, options, `${pointer}/${name}`, encoding);
    }
    const requiredKeys = Object.keys(properties).filter(
      (name) => required.has(name) || (name === 'encoding' && encoding !== undefined),
    );
    return fc.record(fields, { requiredKeys }).map((record) => {
      // An absent encoding is drawn as undefined: leave the key out, as a client would.
      if (record.encoding === undefined) delete record.encoding;
      return record;
    });
  };
  if (encodingSchema === undefined) return build(undefined);
  const choices = options.resolve?.(encodingSchema).enum ?? encodingSchema.enum ?? [];
  const encodings = required.has('encoding') ? choices : [undefined, ...choices];
  return fc.constantFrom(...encodings).chain(build);
}
