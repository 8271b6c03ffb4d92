/**
 * Router admission with real processes (issue 13), on a SQLite router and on two routers sharing
 * PostgreSQL: tokens from `router token create` and `--registration-token`, allowed keys from
 * `social-harness identity`, and the refusal a daemon reports in its health, its owner status and
 * every send. The rules themselves are unit-tested in apps/router/src/registry/.
 */
import { appendFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textOf } from "./harness/inbox.js";
import { callTool, connect, eventually, tool } from "./harness/mcp.js";
import { ownerClient } from "./harness/owner.js";
import { waitForItems, type Agent } from "./harness/network.js";
import { DaemonProcess, removeDirs, RouterProcess, runCli, tempDir } from "./harness/processes.js";

const POSTGRES = "postgres://postgres@127.0.0.1:5432/test";

interface Health {
  link: string;
  refusal?: { reason: string; admission?: string; detail: string };
}

const healthOf = async (daemon: DaemonProcess): Promise<Health> =>
  (await fetch(daemon.mcpUrl.replace(/\/mcp$/, "/healthz"))).json() as Promise<Health>;

/** Waits until the daemon's link settles on `state` and returns its health. */
const settled = (daemon: DaemonProcess, state: string) =>
  eventually(
    async () => {
      const health = await healthOf(daemon);
      return health.link === state ? health : undefined;
    },
    15_000,
    `${daemon.name} link ${state}`,
  );

describe.each(["sqlite", "postgres"] as const)("router admission with real processes on %s", (dialect) => {
  const schema = `admission_sys_${process.pid}_${Date.now()}`;
  const database = dialect === "postgres" ? `${POSTGRES}?schema=${schema}` : undefined;
  const dirs: string[] = [];
  const routers: RouterProcess[] = [];
  const daemons: DaemonProcess[] = [];
  const clients: { close(): Promise<void> }[] = [];

  const dir = (label: string) => {
    const created = tempDir(label);
    dirs.push(created);
    return created;
  };
  const startRouter = async (extraArgs: string[], sharedDatabase = database) => {
    const router = await RouterProcess.start({ dataDir: dir("router"), database: sharedDatabase, extraArgs });
    routers.push(router);
    return router;
  };
  const startDaemon = async (name: string, router: RouterProcess, extraArgs: string[] = []) => {
    const daemon = await DaemonProcess.start({ name, router: router.url, dataDir: dir(name), extraArgs });
    daemons.push(daemon);
    return daemon;
  };
  const agent = async (daemon: DaemonProcess): Promise<Agent> => {
    const mcp = await connect(daemon.mcpUrl, daemon.runtimeToken);
    clients.push(mcp);
    return { daemon, mcp };
  };
  /** `router <args>` against a router's data directory (and the shared database). */
  const routerCli = (router: RouterProcess, ...args: string[]) =>
    runCli(["router", ...args, "--data", router.dataDir, ...(database === undefined ? [] : ["--database", database])]);
  const tokenCli = (router: RouterProcess, verb: string, ...args: string[]) =>
    routerCli(router, "token", verb, ...args);
  /** A token file from `router token create`, as an operator makes one, and the id it printed. */
  const issueToken = (router: RouterProcess, name?: string) => {
    const file = path.join(dir("token"), "registration.token");
    const made = tokenCli(router, "create", ...(name === undefined ? [] : ["--name", name]), "--out", file);
    expect(made.status, made.stderr).toBe(0);
    const id = /^registration token ([A-Za-z0-9_-]{12}) for /.exec(made.stderr)?.[1];
    expect(id, made.stderr).toBeDefined();
    return { file, id: id! };
  };
  const tokenFile = (router: RouterProcess, name?: string) => issueToken(router, name).file;

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    for (const daemon of daemons) await daemon.stop();
    for (const router of routers) await router.stop();
    removeDirs(...dirs);
    if (database !== undefined) {
      const client = new pg.Client({ connectionString: POSTGRES });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.query(`DROP SCHEMA IF EXISTS ${schema}_keys CASCADE`);
      await client.end();
    }
  });

  describe("--admission token", () => {
    let router: RouterProcess;
    let other: RouterProcess;
    let alice: DaemonProcess;
    let aliceToken: string;

    beforeAll(async () => {
      router = await startRouter(["--admission", "token"]);
      // On PostgreSQL a second router shares the database; on SQLite daemons share the one router.
      other = database === undefined ? router : await startRouter(["--admission", "token"]);
    });

    it("registers daemons that present a token from `router token create`, and they deliver", async () => {
      aliceToken = tokenFile(router, "alice");
      alice = await startDaemon("alice", router, ["--registration-token", aliceToken]);
      const bob = await startDaemon("bob", other, ["--registration-token", tokenFile(other)]);
      await alice.linked();
      await bob.linked();
      expect(
        await tool((await agent(alice)).mcp.client, "send_message", { to: "agent:bob", text: "admitted" }),
      ).toEqual({});
      const [item] = await waitForItems(await agent(bob), 1);
      expect(textOf(item!)).toBe("admitted");
    });

    it("reports a daemon without a token as not-registered with the reason, in health, status and sends", async () => {
      const carol = await startDaemon("carol", router);
      const health = await settled(carol, "not-registered");
      expect(health.refusal).toMatchObject({ reason: "not-admitted", admission: "token-required" });
      const status = await ownerClient(carol).status.query();
      expect(status.linkRefusal).toMatchObject({ reason: "not-admitted", admission: "token-required" });
      const send = await callTool((await agent(carol)).mcp.client, "send_message", { to: "agent:alice", text: "x" });
      expect(send).toMatchObject({
        ok: false,
        code: -32030,
        data: { reason: "not-registered", detail: expect.stringContaining("token-required") },
      });
      expect(carol.stderr()).toContain('"admission":"token-required"');
    });

    it("refuses a token used once already, and one issued for another name", async () => {
      const mallory = await startDaemon("mallory", other, ["--registration-token", aliceToken]);
      expect((await settled(mallory, "not-registered")).refusal).toMatchObject({ admission: "token-used" });
      const dave = await startDaemon("dave", other, ["--registration-token", tokenFile(other, "erin")]);
      expect((await settled(dave, "not-registered")).refusal).toMatchObject({
        admission: "token-for-another-name",
        detail: "the token registers erin, not dave",
      });
    });

    it("lists tokens and revokes one with `router token list` and `revoke`; its daemon is refused, saying so", async () => {
      const { file, id } = issueToken(router, "grace");
      const revoked = tokenCli(other, "revoke", id);
      expect(revoked.status, revoked.stderr).toBe(0);
      expect(revoked.stderr).toBe(`revoked registration token ${id}: it registers nothing now\n`);
      const grace = await startDaemon("grace", other, ["--registration-token", file]);
      expect((await settled(grace, "not-registered")).refusal).toMatchObject({
        admission: "token-expired",
        detail: expect.stringContaining("the router's operator revoked the token at"),
      });

      const listed = tokenCli(router, "list", "--json");
      expect(listed.status, listed.stderr).toBe(0);
      const tokens = JSON.parse(listed.stdout) as { id: string; name?: string; state: { kind: string; by?: string } }[];
      expect(tokens.find((t) => t.id === id)).toMatchObject({ name: "grace", state: { kind: "revoked" } });
      const alicesToken = tokens.find((t) => t.name === "alice");
      expect(alicesToken).toMatchObject({ state: { kind: "used", by: "alice" } });
      expect(listed.stdout).not.toContain("sh_reg_");
      const table = tokenCli(other, "list");
      expect(table.stdout).toMatch(/^id +registers +created +expires +state$/m);
      expect(table.stdout).toMatch(new RegExp(`^${id} +grace +\\S+ +\\S+ +revoked at `, "m"));
      expect(table.stdout).toMatch(new RegExp(`^${alicesToken!.id} +alice +\\S+ +\\S+ +used by alice at `, "m"));

      // A used token stays used: revoking it would not withdraw alice's name.
      const refused = tokenCli(router, "revoke", alicesToken!.id);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain("would not withdraw the name");
      expect(tokenCli(router, "revoke", "nosuchtoken0").stderr).toContain("issued no registration token nosuchtoken0");
    });

    it("links a restarted daemon again under its name, its spent token notwithstanding", async () => {
      alice = await alice.restart();
      daemons.push(alice);
      await alice.linked();
      expect((await healthOf(alice)).refusal).toBeUndefined();
    });

    it("withdraws a name with `router agent withdraw`: its daemon is refused at once, saying so, and so is any other", async () => {
      const withdrawCli = (name: string) => routerCli(other, "agent", "withdraw", name);
      const heidi = await startDaemon("heidi", other, ["--registration-token", tokenFile(router, "heidi")]);
      await heidi.linked();
      const later = tokenFile(router, "heidi");
      const sender = (await agent(alice)).mcp.client;
      expect(await tool(sender, "send_message", { to: "agent:heidi", text: "before" })).toEqual({});

      const withdrawn = withdrawCli("heidi");
      expect(withdrawn.status, withdrawn.stderr).toBe(0);
      expect(withdrawn.stderr).toMatch(/^withdrew heidi from key [A-Za-z0-9_-]{43} \(registered /);
      const refusal = {
        reason: "not-admitted",
        admission: "key-not-allowed",
        detail: expect.stringMatching(/^the router's operator withdrew heidi at .+; no key registers it again$/),
      };
      expect((await settled(heidi, "not-registered")).refusal).toMatchObject(refusal);
      // Every router refuses posts to it within its poll of the database (a second).
      const refused = await eventually(
        async () => {
          const send = await callTool(sender, "send_message", { to: "agent:heidi", text: "nobody" });
          return send.ok ? undefined : send;
        },
        5_000,
        "a send to heidi refused",
      );
      expect(refused).toMatchObject({ ok: false, data: { reason: "unknown-agent" } });
      const again = withdrawCli("heidi");
      expect(again.status).toBe(1);
      expect(again.stderr).toContain("no key holds heidi at this router");

      // Another daemon (another key) with a token issued before the withdrawal is refused too: a new
      // key under the name would read the conversation that holds "before".
      const next = await startDaemon("heidi", router, ["--registration-token", later]);
      expect((await settled(next, "not-registered")).refusal).toMatchObject(refusal);
      const issued = tokenCli(router, "create", "--name", "heidi");
      expect(issued.status).toBe(1);
      expect(issued.stderr).toMatch(/heidi was withdrawn at .+; no key registers it again/);
    });

    it("refuses to start a daemon whose token file is missing or holds no token", async () => {
      const junk = path.join(dir("junk"), "token");
      writeFileSync(junk, "not a token\n");
      for (const file of [junk, `${junk}.missing`]) {
        const started = runCli(
          ["daemon", "--name", "frank", "--router", router.url, "--data", dir("frank")].concat([
            "--registration-token",
            file,
          ]),
        );
        expect(started.status).toBe(1);
        expect(started.stderr).toMatch(/registration-token|registration token/);
      }
    });
  });

  describe("--admission keys", () => {
    let router: RouterProcess;
    let allowed: string;

    beforeAll(async () => {
      allowed = path.join(dir("allowed"), "allowed-keys");
      writeFileSync(allowed, "# name and key of every agent this router admits\n");
      const keysDatabase = database === undefined ? undefined : `${POSTGRES}?schema=${schema}_keys`;
      router = await startRouter(["--admission", "keys", "--allowed-keys", allowed], keysDatabase);
    });

    it("registers a daemon whose `identity` line the operator listed, before its first start", async () => {
      const data = dir("gina");
      const line = runCli(["identity", "--data", data, "--name", "gina"]);
      expect(line.stdout).toMatch(/^gina [A-Za-z0-9_-]{43}\n$/);
      appendFileSync(allowed, line.stdout);
      const gina = await DaemonProcess.start({ name: "gina", router: router.url, dataDir: data });
      daemons.push(gina);
      await gina.linked();
    });

    it("refuses an unlisted daemon as not-registered, naming the line that would admit it", async () => {
      const hank = await startDaemon("hank", router);
      const health = await settled(hank, "not-registered");
      const key = runCli(["identity", "--data", hank.dataDir]).stdout.trim();
      expect(health.refusal).toMatchObject({
        reason: "not-admitted",
        admission: "key-not-allowed",
        detail: expect.stringContaining(`"hank ${key}"`),
      });
    });
  });

  it("refuses to start a router listening beyond loopback without --admission, saying how to choose", () => {
    const refused = runCli(["router", "--data", dir("open-router"), "--listen", "0.0.0.0:0"]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("which is not loopback, so choose who may register a name: --admission token");
  });
});
