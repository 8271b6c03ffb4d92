import { ConfigProvider, Effect, Exit, Scope } from "effect";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquireHarnessEndpoint, TOKEN_ENV } from "./endpoint.js";
import { ConnectError, SendError } from "./errors.js";
import { startFakeDaemon, type FakeDaemon } from "./testing/fake-daemon.js";

const withEnv = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))));

const connectFailure = (url: URL, token: string | undefined, env: Record<string, string> = {}) =>
  Effect.runPromise(
    Effect.scoped(Effect.flip(acquireHarnessEndpoint(url, token === undefined ? {} : { token }))).pipe(withEnv(env)),
  );

describe("acquireHarnessEndpoint", () => {
  let daemon: FakeDaemon;
  beforeEach(async () => {
    daemon = await startFakeDaemon();
  });
  afterEach(() => daemon.stop().catch(() => undefined));

  it("connects with the token it is given", async () => {
    const result = await Effect.runPromise(
      Effect.scoped(
        Effect.flatMap(acquireHarnessEndpoint(daemon.url, { token: daemon.token }), (endpoint) =>
          endpoint.send({ to: "agent:bob", text: "hi" }),
        ),
      ),
    );
    expect(result).toEqual({});
  });

  it(`reads the token from ${TOKEN_ENV} when none is given`, async () => {
    const result = await Effect.runPromise(
      Effect.scoped(
        Effect.flatMap(acquireHarnessEndpoint(daemon.url), (endpoint) =>
          endpoint.send({ to: "agent:bob", text: "hi" }),
        ),
      ).pipe(withEnv({ [TOKEN_ENV]: daemon.token })),
    );
    expect(result).toEqual({});
  });

  it("fails as unauthorized when no token is given or configured", async () => {
    const error = await connectFailure(daemon.url, undefined);
    expect(error).toBeInstanceOf(ConnectError);
    expect(error.reason).toBe("unauthorized");
    expect(error.detail).toContain(TOKEN_ENV);
  });

  it("fails as unauthorized when the daemon answers 401", async () => {
    const error = await connectFailure(daemon.url, "not-the-runtime-token");
    expect(error).toBeInstanceOf(ConnectError);
    expect(error.reason).toBe("unauthorized");
    expect(error.detail).toMatch(/401/);
  });

  it("fails as unreachable when nothing listens at the URL", async () => {
    await daemon.stop();
    const error = await connectFailure(daemon.url, daemon.token);
    expect(error).toBeInstanceOf(ConnectError);
    expect(error.reason).toBe("unreachable");
  });

  it("fails as incompatible when the endpoint lacks a runtime tool", async () => {
    const partial = await startFakeDaemon({ tools: ["send_message", "read_inbox"] });
    try {
      const error = await connectFailure(partial.url, partial.token);
      expect(error.reason).toBe("incompatible");
      expect(error.detail).toContain("acknowledge_delivery");
    } finally {
      await partial.stop();
    }
  });

  it("closes the MCP connection when the scope closes", async () => {
    const error = await Effect.runPromise(
      Effect.gen(function* () {
        const scope = yield* Scope.make();
        const endpoint = yield* Scope.extend(acquireHarnessEndpoint(daemon.url, { token: daemon.token }), scope);
        yield* Scope.close(scope, Exit.void);
        return yield* Effect.flip(endpoint.send({ to: "agent:bob", text: "after close" }));
      }),
    );
    expect(error).toBeInstanceOf(SendError);
    expect(error).toMatchObject({ reason: "network-unavailable" });
    expect(daemon.calls).toEqual([]);
  });
});
