/**
 * The MCP form-mode `requestedSchema` grammar (protocol 2026-07-28, elicitation): a flat object
 * of string, number/integer, boolean, single-select enum (untitled, titled, legacy enumNames) and
 * multi-select enum properties. `checkRequestedSchema` names the first offending property;
 * `checkAnswerContent` validates an answer against a checked schema, the same way on every side.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface RequestedSchema {
  readonly $schema?: string;
  readonly type: "object";
  readonly properties: Readonly<Record<string, Readonly<Record<string, JsonValue>>>>;
  readonly required?: readonly string[];
}

export type AnswerContent = Readonly<Record<string, string | number | boolean | readonly string[]>>;

export type FormCheck =
  { readonly ok: true } | { readonly ok: false; readonly field: string; readonly problem: string };

const OK: FormCheck = { ok: true };
const fail = (field: string, problem: string): FormCheck => ({ ok: false, field, problem });

const FORMATS = new Set(["email", "uri", "date", "date-time"]);
const COMMON_KEYS = ["type", "title", "description", "default"];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function onlyKeys(field: string, value: Record<string, unknown>, allowed: readonly string[]): FormCheck {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) return fail(`${field}.${key}`, "is not part of the form grammar");
  }
  return OK;
}

function checkText(field: string, value: Record<string, unknown>, key: string): FormCheck {
  return value[key] === undefined || typeof value[key] === "string" ? OK : fail(`${field}.${key}`, "must be a string");
}

function checkBounds(
  field: string,
  value: Record<string, unknown>,
  low: string,
  high: string,
  integer: boolean,
): FormCheck {
  for (const key of [low, high]) {
    const bound = value[key];
    if (bound === undefined) continue;
    const valid = integer ? isNonNegativeInteger(bound) : typeof bound === "number" && Number.isFinite(bound);
    if (!valid) return fail(`${field}.${key}`, integer ? "must be a non-negative integer" : "must be a finite number");
  }
  const lo = value[low];
  const hi = value[high];
  if (typeof lo === "number" && typeof hi === "number" && lo > hi) return fail(`${field}.${low}`, `exceeds ${high}`);
  return OK;
}

function uniqueStrings(field: string, value: unknown): FormCheck {
  if (!Array.isArray(value) || value.length === 0) return fail(field, "must be a non-empty array of strings");
  if (!value.every((v) => typeof v === "string")) return fail(field, "must contain only strings");
  if (new Set(value).size !== value.length) return fail(field, "must not repeat a value");
  return OK;
}

function titledOptions(field: string, value: unknown): FormCheck {
  if (!Array.isArray(value) || value.length === 0) return fail(field, "must be a non-empty array of {const, title}");
  const seen = new Set<string>();
  for (const [i, option] of value.entries()) {
    if (!isRecord(option) || typeof option.const !== "string" || typeof option.title !== "string") {
      return fail(`${field}[${i}]`, "must be {const: string, title: string}");
    }
    const extra = onlyKeys(`${field}[${i}]`, option, ["const", "title"]);
    if (!extra.ok) return extra;
    if (seen.has(option.const)) return fail(`${field}[${i}].const`, "repeats a value");
    seen.add(option.const);
  }
  return OK;
}

/** The values a single- or multi-select enum property allows, or undefined for other kinds. */
export function enumValues(property: Readonly<Record<string, unknown>>): readonly string[] | undefined {
  const source = property.type === "array" && isRecord(property.items) ? property.items : property;
  if (Array.isArray(source.enum)) return source.enum as string[];
  const options = source.oneOf ?? source.anyOf;
  if (Array.isArray(options)) return (options as { const: string }[]).map((o) => o.const);
  return undefined;
}

function all(...checks: (() => FormCheck)[]): FormCheck {
  for (const check of checks) {
    const result = check();
    if (!result.ok) return result;
  }
  return OK;
}

function checkProperty(field: string, property: unknown): FormCheck {
  if (!isRecord(property)) return fail(field, "must be an object");
  const text = (key: string) => () => checkText(field, property, key);
  switch (property.type) {
    case "string": {
      if (property.enum !== undefined) {
        return all(
          () => onlyKeys(field, property, [...COMMON_KEYS, "enum", "enumNames"]),
          () => uniqueStrings(`${field}.enum`, property.enum),
          () =>
            property.enumNames === undefined ||
            (Array.isArray(property.enumNames) &&
              property.enumNames.length === (property.enum as unknown[]).length &&
              property.enumNames.every((n) => typeof n === "string"))
              ? OK
              : fail(`${field}.enumNames`, "must be strings, one per enum value"),
          text("title"),
          text("description"),
          () => checkDefaultChoice(field, property),
        );
      }
      if (property.oneOf !== undefined) {
        return all(
          () => onlyKeys(field, property, [...COMMON_KEYS, "oneOf"]),
          () => titledOptions(`${field}.oneOf`, property.oneOf),
          text("title"),
          text("description"),
          () => checkDefaultChoice(field, property),
        );
      }
      return all(
        () => onlyKeys(field, property, [...COMMON_KEYS, "minLength", "maxLength", "format"]),
        text("title"),
        text("description"),
        text("default"),
        () => checkBounds(field, property, "minLength", "maxLength", true),
        () =>
          property.format === undefined || (typeof property.format === "string" && FORMATS.has(property.format))
            ? OK
            : fail(`${field}.format`, "must be email, uri, date or date-time"),
      );
    }
    case "number":
    case "integer":
      return all(
        () => onlyKeys(field, property, [...COMMON_KEYS, "minimum", "maximum"]),
        text("title"),
        text("description"),
        () => checkBounds(field, property, "minimum", "maximum", false),
        () =>
          property.default === undefined ||
          (typeof property.default === "number" &&
            Number.isFinite(property.default) &&
            (property.type === "number" || Number.isInteger(property.default)))
            ? OK
            : fail(`${field}.default`, `must be ${property.type === "integer" ? "an integer" : "a number"}`),
      );
    case "boolean":
      return all(
        () => onlyKeys(field, property, COMMON_KEYS),
        text("title"),
        text("description"),
        () =>
          property.default === undefined || typeof property.default === "boolean"
            ? OK
            : fail(`${field}.default`, "must be a boolean"),
      );
    case "array": {
      const items = property.items;
      return all(
        () => onlyKeys(field, property, [...COMMON_KEYS, "minItems", "maxItems", "items"]),
        text("title"),
        text("description"),
        () => checkBounds(field, property, "minItems", "maxItems", true),
        () => {
          if (!isRecord(items)) return fail(`${field}.items`, "must be an enum of strings");
          if (items.anyOf !== undefined) {
            return all(
              () => onlyKeys(`${field}.items`, items, ["anyOf"]),
              () => titledOptions(`${field}.items.anyOf`, items.anyOf),
            );
          }
          return all(
            () => onlyKeys(`${field}.items`, items, ["type", "enum"]),
            () => (items.type === "string" ? OK : fail(`${field}.items.type`, 'must be "string"')),
            () => uniqueStrings(`${field}.items.enum`, items.enum),
          );
        },
        () => {
          if (property.default === undefined) return OK;
          const allowed = enumValues(property) ?? [];
          return Array.isArray(property.default) &&
            property.default.every((v) => typeof v === "string" && allowed.includes(v))
            ? OK
            : fail(`${field}.default`, "must list allowed values");
        },
      );
    }
    default:
      return fail(`${field}.type`, "must be string, number, integer, boolean or array");
  }
}

function checkDefaultChoice(field: string, property: Record<string, unknown>): FormCheck {
  if (property.default === undefined) return OK;
  const allowed = enumValues(property) ?? [];
  return typeof property.default === "string" && allowed.includes(property.default)
    ? OK
    : fail(`${field}.default`, "must be one of the allowed values");
}

/** Checks that `schema` is a form-mode requestedSchema; fields are named from `requestedSchema`. */
export function checkRequestedSchema(schema: unknown, field = "requestedSchema"): FormCheck {
  if (!isRecord(schema)) return fail(field, "must be an object");
  const extra = onlyKeys(field, schema, ["$schema", "type", "properties", "required"]);
  if (!extra.ok) return extra;
  if (schema.type !== "object") return fail(`${field}.type`, 'must be "object"');
  if (schema.$schema !== undefined && typeof schema.$schema !== "string")
    return fail(`${field}.$schema`, "must be a string");
  if (!isRecord(schema.properties)) return fail(`${field}.properties`, "must be an object");
  for (const [name, property] of Object.entries(schema.properties)) {
    if (name.length === 0) return fail(`${field}.properties`, "has an empty property name");
    const check = checkProperty(`${field}.properties.${name}`, property);
    if (!check.ok) return check;
  }
  if (schema.required !== undefined) {
    if (!Array.isArray(schema.required)) return fail(`${field}.required`, "must be an array of property names");
    const seen = new Set<unknown>();
    for (const name of schema.required) {
      if (typeof name !== "string" || !Object.hasOwn(schema.properties, name)) {
        return fail(`${field}.required`, `names ${JSON.stringify(name)}, which is not a property`);
      }
      if (seen.has(name)) return fail(`${field}.required`, `repeats ${JSON.stringify(name)}`);
      seen.add(name);
    }
  }
  return OK;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function matchesFormat(format: unknown, value: string): boolean {
  switch (format) {
    case "email":
      return EMAIL.test(value);
    case "uri":
      return URL.canParse(value);
    case "date":
      return DATE.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));
    case "date-time":
      return DATE_TIME.test(value) && !Number.isNaN(Date.parse(value));
    default:
      return true;
  }
}

function checkAnswerValue(name: string, property: Readonly<Record<string, unknown>>, value: unknown): FormCheck {
  const allowed = enumValues(property);
  switch (property.type) {
    case "string": {
      if (typeof value !== "string") return fail(name, "must be a string");
      if (allowed !== undefined) return allowed.includes(value) ? OK : fail(name, "is not one of the allowed values");
      if (typeof property.minLength === "number" && value.length < property.minLength)
        return fail(name, `is shorter than ${property.minLength}`);
      if (typeof property.maxLength === "number" && value.length > property.maxLength)
        return fail(name, `is longer than ${property.maxLength}`);
      return matchesFormat(property.format, value) ? OK : fail(name, `is not a valid ${String(property.format)}`);
    }
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value)) return fail(name, "must be a number");
      if (property.type === "integer" && !Number.isInteger(value)) return fail(name, "must be an integer");
      if (typeof property.minimum === "number" && value < property.minimum)
        return fail(name, `is below ${property.minimum}`);
      if (typeof property.maximum === "number" && value > property.maximum)
        return fail(name, `is above ${property.maximum}`);
      return OK;
    }
    case "boolean":
      return typeof value === "boolean" ? OK : fail(name, "must be a boolean");
    case "array": {
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string"))
        return fail(name, "must be an array of strings");
      if (new Set(value).size !== value.length) return fail(name, "repeats a value");
      if (!value.every((v) => allowed?.includes(v) === true)) return fail(name, "has a value that is not allowed");
      if (typeof property.minItems === "number" && value.length < property.minItems)
        return fail(name, `has fewer than ${property.minItems} values`);
      if (typeof property.maxItems === "number" && value.length > property.maxItems)
        return fail(name, `has more than ${property.maxItems} values`);
      return OK;
    }
    default:
      return fail(name, "has no valid schema");
  }
}

/** Validates answer content against a requestedSchema already accepted by checkRequestedSchema. */
export function checkAnswerContent(schema: RequestedSchema, content: unknown): FormCheck {
  if (!isRecord(content)) return fail("content", "must be an object");
  for (const [name, value] of Object.entries(content)) {
    const property = Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
    if (property === undefined) return fail(name, "is not a field of the requested schema");
    const check = checkAnswerValue(name, property, value);
    if (!check.ok) return check;
  }
  for (const name of schema.required ?? []) {
    if (!Object.hasOwn(content, name)) return fail(name, "is required");
  }
  return OK;
}

/** Formats a failed check as one readable sentence: `field problem`. */
export function describeFormFailure(check: Extract<FormCheck, { ok: false }>): string {
  return `${check.field} ${check.problem}`;
}
