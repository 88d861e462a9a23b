/**
 * The subset of JSON Schema that the route schemas use (as @fastify/swagger publishes them in the
 * OpenAPI document), and two things built on it: a checker that says where a value breaks a
 * schema (the oracle's "2xx matches the response schema"), and the list of keywords a schema
 * uses, so that a keyword this fuzzer does not understand fails a test instead of being ignored.
 */

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  description?: string;
  default?: unknown;
  [keyword: string]: unknown;
}

/**
 * Keywords the generator and the checker act on, and annotations they may ignore. A schema with
 * any other keyword (a `format`, a `patternProperties`, a `not`) fails the coverage test: the
 * generator would not know how to satisfy it, so the route would be fuzzed blind.
 */
export const UNDERSTOOD_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'enum',
  'const',
  'anyOf',
  'oneOf',
  'allOf',
  '$ref',
  // Annotations: no effect on validity.
  'description',
  'default',
  'title',
  'examples',
  'deprecated',
  '$id',
  'readOnly',
  'writeOnly',
]);

/** Resolves `#/components/schemas/<name>` references against the OpenAPI document's components. */
export type SchemaResolver = (schema: JsonSchema) => JsonSchema;

export function resolverFor(components: Record<string, JsonSchema> | undefined): SchemaResolver {
  return function resolve(schema) {
    let current = schema;
    for (let hops = 0; current.$ref !== undefined; hops++) {
      const name = /^#\/components\/schemas\/(.+)$/.exec(current.$ref)?.[1];
      const target = name === undefined ? undefined : components?.[name];
      if (target === undefined || hops > 16) throw new Error(`unresolvable schema reference ${current.$ref}`);
      current = target;
    }
    return current;
  };
}

export const identityResolver: SchemaResolver = (schema) => {
  if (schema.$ref !== undefined) throw new Error(`unexpected schema reference ${schema.$ref}`);
  return schema;
};

/** Every keyword used anywhere in the schema (property names excluded). */
export function keywordsOf(
  schema: JsonSchema,
  resolve: SchemaResolver = identityResolver,
  seen = new Set<JsonSchema>(),
): Set<string> {
  const found = new Set<string>();
  const visit = (node: JsonSchema) => {
    if (seen.has(node)) return;
    seen.add(node);
    for (const keyword of Object.keys(node)) found.add(keyword);
    const target = node.$ref === undefined ? node : resolve(node);
    if (target !== node) visit(target);
    for (const child of Object.values(node.properties ?? {})) visit(child);
    if (typeof node.additionalProperties === 'object') visit(node.additionalProperties);
    if (node.items !== undefined) visit(node.items);
    for (const list of [node.anyOf, node.oneOf, node.allOf]) for (const child of list ?? []) visit(child);
  };
  visit(schema);
  return found;
}

/** Every string the schema names in an enum or const: identifiers, which error texts may list. */
export function enumStrings(
  schema: JsonSchema,
  resolve: SchemaResolver = identityResolver,
  seen = new Set<JsonSchema>(),
): Set<string> {
  const found = new Set<string>();
  const visit = (node: JsonSchema) => {
    if (seen.has(node)) return;
    seen.add(node);
    const target = resolve(node);
    for (const value of [...(target.enum ?? []), ...(target.const === undefined ? [] : [target.const])]) {
      if (typeof value === 'string') found.add(value);
    }
    for (const child of Object.values(target.properties ?? {})) visit(child);
    if (typeof target.additionalProperties === 'object') visit(target.additionalProperties);
    if (target.items !== undefined) visit(target.items);
    for (const list of [target.anyOf, target.oneOf, target.allOf]) for (const child of list ?? []) visit(child);
  };
  visit(schema);
  return found;
}

export function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeMatches(expected: string, value: unknown): boolean {
  const actual = typeOf(value);
  return expected === actual || (expected === 'number' && actual === 'integer');
}

/**
 * Where `value` breaks `schema`: one message per fault, with a JSON pointer; empty when it
 * conforms. Patterns are compiled with the `u` flag, as Ajv does.
 */
export function schemaViolations(
  schema: JsonSchema,
  value: unknown,
  resolve: SchemaResolver = identityResolver,
  at = '',
): string[] {
  const node = resolve(schema);
  const here = at === '' ? '/' : at;
  const faults: string[] = [];
  if (node.allOf !== undefined)
    for (const part of node.allOf) faults.push(...schemaViolations(part, value, resolve, at));
  for (const branches of [node.anyOf, node.oneOf]) {
    if (branches === undefined) continue;
    const matching = branches.filter((branch) => schemaViolations(branch, value, resolve, at).length === 0).length;
    if (matching === 0 || (branches === node.oneOf && matching > 1)) {
      faults.push(`${here}: matches ${matching} of the ${branches.length} alternatives`);
    }
  }
  if (node.const !== undefined && !Object.is(node.const, value))
    faults.push(`${here}: must be ${JSON.stringify(node.const)}`);
  if (node.enum !== undefined && !node.enum.some((option) => Object.is(option, value)))
    faults.push(`${here}: not one of the enum`);
  if (node.type !== undefined) {
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (!types.some((type) => typeMatches(type, value))) {
      faults.push(`${here}: must be ${types.join(' or ')}, is ${typeOf(value)}`);
      return faults;
    }
  }
  if (typeof value === 'string') {
    if (node.minLength !== undefined && value.length < node.minLength)
      faults.push(`${here}: shorter than ${node.minLength}`);
    if (node.maxLength !== undefined && value.length > node.maxLength)
      faults.push(`${here}: longer than ${node.maxLength}`);
    if (node.pattern !== undefined && !new RegExp(node.pattern, 'u').test(value))
      faults.push(`${here}: does not match ${node.pattern}`);
  }
  if (typeof value === 'number') {
    if (node.minimum !== undefined && value < node.minimum) faults.push(`${here}: below ${node.minimum}`);
    if (node.maximum !== undefined && value > node.maximum) faults.push(`${here}: above ${node.maximum}`);
    if (node.exclusiveMinimum !== undefined && value <= node.exclusiveMinimum)
      faults.push(`${here}: not above ${node.exclusiveMinimum}`);
    if (node.exclusiveMaximum !== undefined && value >= node.exclusiveMaximum)
      faults.push(`${here}: not below ${node.exclusiveMaximum}`);
  }
  if (Array.isArray(value)) {
    if (node.minItems !== undefined && value.length < node.minItems)
      faults.push(`${here}: fewer than ${node.minItems} items`);
    if (node.maxItems !== undefined && value.length > node.maxItems)
      faults.push(`${here}: more than ${node.maxItems} items`);
    if (node.items !== undefined)
      value.forEach((item, index) => faults.push(...schemaViolations(node.items!, item, resolve, `${at}/${index}`)));
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    for (const name of node.required ?? []) {
      if (!Object.hasOwn(object, name)) faults.push(`${at}/${name}: is required`);
    }
    for (const [name, child] of Object.entries(object)) {
      const declared = node.properties?.[name];
      if (declared !== undefined) faults.push(...schemaViolations(declared, child, resolve, `${at}/${name}`));
      else if (node.additionalProperties === false) faults.push(`${at}/${name}: is not allowed`);
      else if (typeof node.additionalProperties === 'object')
        faults.push(...schemaViolations(node.additionalProperties, child, resolve, `${at}/${name}`));
    }
  }
  return faults;
}
