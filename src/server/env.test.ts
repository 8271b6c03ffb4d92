import { describe, expect, it, vi } from "vitest";

vi.mock("server-only", () => ({}));
const { parseConsoleEnv } = await import("./env");

const SECRET = "s".repeat(32);
const TOKEN = "t".repeat(43);
const daemons = [
  { name: "alice", url: "http://127.0.0.1:40123/", ownerTokenFile: "/data/alice/owner.token" },
  { name: "bob", url: "https://bob.example:8443", ownerTokenFile: "/data/bob/owner.token" },
];

function env(overrides: Record<string, string | undefined> = {}) {
  return {
    SOCIAL_HARNESS_CONSOLE_DAEMONS: JSON.stringify(daemons),
    SOCIAL_HARNESS_CONSOLE_LOGIN_TOKEN: TOKEN,
    SOCIAL_HARNESS_CONSOLE_SECRET: SECRET,
    PATH: "/usr/bin",
    ...overrides,
  };
}

function problemsOf(overrides: Record<string, string | undefined>): readonly string[] {
  const parsed = parseConsoleEnv(env(overrides));
  if (parsed.ok) throw new Error("expected the environment to be refused");
  return parsed.problems;
}

describe("parseConsoleEnv", () => {
  it("reads the daemons, the login token and the session secret", () => {
    expect(parseConsoleEnv(env())).toEqual({
      ok: true,
      env: {
        daemons: [
          { name: "alice", url: "http://127.0.0.1:40123", ownerTokenFile: "/data/alice/owner.token" },
          { name: "bob", url: "https://bob.example:8443", ownerTokenFile: "/data/bob/owner.token" },
        ],
        loginToken: TOKEN,
        sessionSecret: SECRET,
      },
    });
  });

  it("names every missing variable", () => {
    const parsed = parseConsoleEnv({});
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? [] : parsed.problems).toEqual([
      "SOCIAL_HARNESS_CONSOLE_DAEMONS: is required",
      "SOCIAL_HARNESS_CONSOLE_LOGIN_TOKEN: is required",
      "SOCIAL_HARNESS_CONSOLE_SECRET: is required",
    ]);
  });

  it("refuses daemons that are not JSON", () => {
    expect(problemsOf({ SOCIAL_HARNESS_CONSOLE_DAEMONS: "alice=http://x" })).toEqual([
      "SOCIAL_HARNESS_CONSOLE_DAEMONS: must be a JSON array",
    ]);
  });

  it("refuses an empty daemon list", () => {
    expect(problemsOf({ SOCIAL_HARNESS_CONSOLE_DAEMONS: "[]" })).toEqual([
      "SOCIAL_HARNESS_CONSOLE_DAEMONS: must list at least one daemon",
    ]);
  });

  it("refuses a daemon listed twice", () => {
    const twice = JSON.stringify([daemons[0], { ...daemons[1], name: "alice" }]);
    expect(problemsOf({ SOCIAL_HARNESS_CONSOLE_DAEMONS: twice })).toEqual([
      'SOCIAL_HARNESS_CONSOLE_DAEMONS.1.name: "alice" is listed twice',
    ]);
  });

  it("refuses names unsafe in a URL, non-HTTP URLs, missing token files and unknown fields", () => {
    const bad = JSON.stringify([
      { name: "../alice", url: "http://127.0.0.1:1", ownerTokenFile: "/t" },
      { name: "bob", url: "ftp://127.0.0.1", ownerTokenFile: "/t" },
      { name: "carol", url: "http://127.0.0.1:2" },
      { name: "dave", url: "http://127.0.0.1:3", ownerTokenFile: "/t", ownerToken: "secret" },
    ]);
    const problems = problemsOf({ SOCIAL_HARNESS_CONSOLE_DAEMONS: bad });
    expect(problems).toHaveLength(4);
    expect(problems[0]).toMatch(/^SOCIAL_HARNESS_CONSOLE_DAEMONS\.0\.name: must be/);
    expect(problems[1]).toBe("SOCIAL_HARNESS_CONSOLE_DAEMONS.1.url: must be an http:// or https:// URL");
    expect(problems[2]).toMatch(/^SOCIAL_HARNESS_CONSOLE_DAEMONS\.2\.ownerTokenFile: /);
    expect(problems[3]).toMatch(/^SOCIAL_HARNESS_CONSOLE_DAEMONS\.3: .*ownerToken/);
  });

  it("refuses a short login token or secret without repeating either", () => {
    const problems = problemsOf({
      SOCIAL_HARNESS_CONSOLE_LOGIN_TOKEN: "short-token",
      SOCIAL_HARNESS_CONSOLE_SECRET: "tiny",
    });
    expect(problems).toEqual([
      "SOCIAL_HARNESS_CONSOLE_LOGIN_TOKEN: must be at least 16 characters",
      "SOCIAL_HARNESS_CONSOLE_SECRET: must be at least 32 characters",
    ]);
    expect(problems.join("\n")).not.toMatch(/short-token|tiny/);
  });
});
