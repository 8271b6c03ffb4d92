import { describe, expect, it, vi } from "vitest";

vi.mock("server-only", () => ({}));
const { cookieValue, isSameOrigin } = await import("./request-guard");

const post = (headers: Record<string, string>) =>
  new Request("http://localhost:3000/api/daemons/bob/trpc/inbox.discard", {
    method: "POST",
    headers: { host: "127.0.0.1:3000", ...headers },
  });

describe("request checks", () => {
  it("finds one cookie among several", () => {
    expect(cookieValue("a=1; sh_console_session=v.w.x; b=2", "sh_console_session")).toBe("v.w.x");
    expect(cookieValue("xsh_console_session=v", "sh_console_session")).toBeUndefined();
    expect(cookieValue(null, "sh_console_session")).toBeUndefined();
  });

  it("accepts same-origin browser calls and refuses other sites, including other ports on the host", () => {
    expect(isSameOrigin(post({ "sec-fetch-site": "same-origin" }))).toBe(true);
    expect(isSameOrigin(post({ "sec-fetch-site": "same-site", origin: "http://127.0.0.1:4000" }))).toBe(false);
    expect(isSameOrigin(post({ "sec-fetch-site": "cross-site" }))).toBe(false);
    expect(isSameOrigin(post({ origin: "http://127.0.0.1:3000" }))).toBe(true);
    expect(isSameOrigin(post({ origin: "http://127.0.0.1:4000" }))).toBe(false);
    expect(isSameOrigin(post({ origin: "null" }))).toBe(false);
  });
});
