/*
 * The built-in runtime constrains a tool call's arguments with a grammar made from the tool's JSON Schema, and the
 * grammar takes a subset of JSON Schema. This keeps what it takes and widens what it does not: a schema the grammar
 * cannot express becomes one that lets any JSON value through, and the tool checks its input as it does for every
 * model. Bounds the grammar has no way to say (`minimum`, `pattern`) are left to the tool.
 */

export type GrammarSchema = Readonly<Record<string, unknown>>;

const basicTypes = new Set(['string', 'number', 'integer', 'boolean', 'null']);
const stringFormats = new Set(['date-time', 'time', 'date']);

/** Any JSON value: what a schema the grammar cannot express becomes. */
const anyValue: GrammarSchema = {
  oneOf: [
    { type: ['string', 'number', 'boolean', 'null'] },
    { type: 'array', items: { type: ['string', 'number', 'boolean', 'null'] } },
    { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean', 'null'] } },
  ],
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;

function described(schema: Record<string, unknown>, out: Record<string, unknown>): GrammarSchema {
  if (typeof schema['description'] === 'string') out['description'] = schema['description'];
  return out;
}

function convert(schema: unknown, depth: number, definitions: ReadonlySet<string>): GrammarSchema {
  if (!isRecord(schema) || depth > 12) return anyValue;
  if ('const' in schema) {
    const value = schema['const'];
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return described(schema, { const: value });
  }
  if (Array.isArray(schema['enum'])) {
    const values = schema['enum'].filter((value) => value === null || ['string', 'number', 'boolean'].includes(typeof value));
    if (values.length > 0) return described(schema, { enum: values });
  }
  const ref = schema['$ref'];
  if (typeof ref === 'string') {
    const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref)?.[1];
    return name !== undefined && definitions.has(name) ? described(schema, { $ref: `#/$defs/${name}` }) : anyValue;
  }
  const alternatives = Array.isArray(schema['oneOf']) ? schema['oneOf'] : Array.isArray(schema['anyOf']) ? schema['anyOf'] : null;
  if (alternatives && alternatives.length > 0) {
    return described(schema, { oneOf: alternatives.map((item) => convert(item, depth + 1, definitions)) });
  }
  const type = schema['type'];
  if (Array.isArray(type)) {
    if (type.every((item) => typeof item === 'string' && basicTypes.has(item))) return described(schema, { type });
    return described(schema, { oneOf: type.map((item) => convert({ ...schema, type: item }, depth + 1, definitions)) });
  }
  switch (type) {
    case 'object': {
      const properties = isRecord(schema['properties']) ? schema['properties'] : {};
      const names = Object.keys(properties);
      const required = Array.isArray(schema['required'])
        ? schema['required'].filter((name): name is string => typeof name === 'string' && names.includes(name))
        : [];
      // The grammar makes every listed property one the model must write. An optional one may be written as null,
      // which `withoutOptionalNulls` takes out again before the tool sees it, so the model is never made to choose a value.
      const out: Record<string, unknown> = {
        type: 'object',
        properties: Object.fromEntries(
          names.map((name) => {
            const converted = convert(properties[name], depth + 1, definitions);
            return [name, required.includes(name) ? converted : { oneOf: [converted, { type: 'null' }] }];
          }),
        ),
        required: names,
      };
      const extra = schema['additionalProperties'];
      if (isRecord(extra)) out['additionalProperties'] = convert(extra, depth + 1, definitions);
      else if (extra === true || (extra === undefined && names.length === 0)) out['additionalProperties'] = anyValue;
      return described(schema, out);
    }
    case 'array': {
      const out: Record<string, unknown> = {
        type: 'array',
        items: 'items' in schema ? convert(schema['items'], depth + 1, definitions) : anyValue,
      };
      const min = count(schema['minItems']);
      const max = count(schema['maxItems']);
      if (min !== undefined) out['minItems'] = min;
      if (max !== undefined && (min === undefined || max >= min)) out['maxItems'] = max;
      return described(schema, out);
    }
    case 'string': {
      const format = schema['format'];
      if (typeof format === 'string' && stringFormats.has(format)) return described(schema, { type: 'string', format });
      const out: Record<string, unknown> = { type: 'string' };
      const min = count(schema['minLength']);
      const max = count(schema['maxLength']);
      if (min !== undefined) out['minLength'] = min;
      if (max !== undefined && (min === undefined || max >= min)) out['maxLength'] = max;
      return described(schema, out);
    }
    case 'number':
    case 'integer':
    case 'boolean':
    case 'null':
      return described(schema, { type });
    default:
      return anyValue;
  }
}

/** A tool's input schema as the grammar takes it. Always an object: tool arguments are one. */
export function grammarSchema(inputSchema: Record<string, unknown>): GrammarSchema {
  const definitions = isRecord(inputSchema['$defs'])
    ? inputSchema['$defs']
    : isRecord(inputSchema['definitions'])
      ? inputSchema['definitions']
      : {};
  const names = new Set(Object.keys(definitions));
  const converted = convert({ ...inputSchema, type: 'object' }, 0, names);
  if (names.size === 0) return converted;
  return { ...converted, $defs: Object.fromEntries([...names].map((name) => [name, convert(definitions[name], 1, names)])) };
}

const allowsNull = (schema: unknown): boolean =>
  isRecord(schema) &&
  (schema['type'] === 'null' ||
    (Array.isArray(schema['type']) && schema['type'].includes('null')) ||
    (Array.isArray(schema['enum']) && schema['enum'].includes(null)) ||
    [schema['oneOf'], schema['anyOf']].some((alternatives) => Array.isArray(alternatives) && alternatives.some(allowsNull)));

/**
 * A tool call's arguments as the tool takes them: the nulls the grammar let the model write for optional properties it
 * had nothing to say for are taken out (at every depth), unless the tool's schema allows null there.
 */
export function withoutOptionalNulls(value: unknown, schema: unknown, depth = 0): unknown {
  if (depth > 12 || !isRecord(schema)) return value;
  if (Array.isArray(value)) return value.map((item) => withoutOptionalNulls(item, schema['items'], depth + 1));
  if (!isRecord(value)) return value;
  const properties = isRecord(schema['properties']) ? schema['properties'] : {};
  const required = Array.isArray(schema['required']) ? schema['required'] : [];
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const property = properties[key];
    if (item === null && !required.includes(key) && !allowsNull(property)) continue;
    out[key] = withoutOptionalNulls(item, property, depth + 1);
  }
  return out;
}
