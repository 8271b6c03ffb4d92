/**
 * A collective request's form (MCP form-mode requestedSchema) as a list of fields: label, kind
 * of answer, allowed choices and whether it is required.
 */
import type { InboundItem } from "@/trpc/owner-api";

type RequestedSchema = Extract<InboundItem, { kind: "collectiveRequest" }>["requestedSchema"];

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function choices(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.flatMap((option: unknown) => {
    if (typeof option === "string") return [option];
    if (typeof option === "object" && option !== null && "title" in option) {
      const title = text(option.title);
      return title === undefined ? [] : [title];
    }
    return [];
  });
}

function describeField(field: Readonly<Record<string, unknown>>): string {
  const single = choices(field.enumNames) ?? choices(field.oneOf) ?? choices(field.enum);
  if (single !== undefined) return `one of: ${single.join(", ")}`;
  switch (field.type) {
    case "array": {
      const items = field.items;
      const options =
        typeof items === "object" && items !== null && !Array.isArray(items)
          ? (choices((items as Record<string, unknown>).anyOf) ?? choices((items as Record<string, unknown>).enum))
          : undefined;
      return options === undefined ? "several choices" : `any of: ${options.join(", ")}`;
    }
    case "boolean":
      return "yes or no";
    case "number":
    case "integer": {
      const unit = field.type === "integer" ? "whole number" : "number";
      const low = typeof field.minimum === "number" ? field.minimum : undefined;
      const high = typeof field.maximum === "number" ? field.maximum : undefined;
      if (low !== undefined && high !== undefined) return `${unit}, ${low} to ${high}`;
      if (low !== undefined) return `${unit}, at least ${low}`;
      if (high !== undefined) return `${unit}, at most ${high}`;
      return unit;
    }
    default: {
      const format = text(field.format);
      return format === undefined ? "text" : `text (${format})`;
    }
  }
}

/** The fields a collective request asks each member to fill in. */
export function RequestedSchemaFields({ schema }: { schema: RequestedSchema }) {
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties);
  if (fields.length === 0) return <p className="text-sm text-ink-muted">No fields: a plain accept or decline.</p>;
  return (
    <dl className="divide-y divide-line rounded-md border border-line" data-testid="requested-schema">
      {fields.map(([key, field]) => (
        <div key={key} className="grid gap-1 px-3 py-2 sm:grid-cols-[minmax(8rem,1fr)_2fr] sm:gap-4">
          <dt className="text-sm font-medium text-ink">
            {text(field.title) ?? key}
            {required.has(key) && <span className="ml-1 text-xs font-normal text-danger">required</span>}
          </dt>
          <dd className="text-sm text-ink-muted">
            {describeField(field)}
            {text(field.description) !== undefined && (
              <span className="block text-ink-faint">{text(field.description)}</span>
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}
