import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { PolicyNote } from "./policy-note";

function textOf(policy: "open" | "allowlist"): string {
  return renderToStaticMarkup(createElement(PolicyNote, { policy }))
    .replace(/<[^>]+>/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

describe("trust policy note", () => {
  // The Held page shows this note above the held items; under open the firewall may hold many.
  it("never says nothing is held under open, since the firewall may still hold items", () => {
    const text = textOf("open");
    expect(text).not.toMatch(/nothing is held/i);
    expect(text).toContain("trust holds nothing under this policy (the firewall may still hold items)");
  });

  it("says items from senders not on the trust list are held under allowlist", () => {
    expect(textOf("allowlist")).toContain("items from any other sender are held here");
  });
});
