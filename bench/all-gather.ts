/**
 * all_gather with 32 members beside one certified group post. Every member holds an
 * inbox.pending push stream open (plain fetch, SSE), so the bench sees the moment an item reaches
 * each inbox without polling. The group post figure is send → the post in every other member's
 * inbox; the all_gather figure is the last answer's send returning → the result in every inbox
 * (the requester's included): the answers' pushes, the close the requester posts, its fan-out.
 */
import { performance } from "node:perf_hooks";
import { cpuMs } from "./meter.js";
import { rawToolCall, type BenchNetwork, type Daemon } from "./network.js";
import { median } from "./table.js";

const SCHEMA = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] };

/** The first pending-count event at or after a time, per member. */
class PendingWatch {
  private readonly events: number[] = [];
  private waiters: { after: number; resolve: (at: number) => void }[] = [];
  private readonly controller = new AbortController();
  readonly active: Promise<void>;

  constructor(daemon: Daemon) {
    let activated: () => void = () => {};
    this.active = new Promise((resolve) => (activated = resolve));
    void this.read(daemon, activated).catch(() => undefined);
  }

  private async read(daemon: Daemon, activated: () => void): Promise<void> {
    const response = await fetch(daemon.mcp, {
      method: "POST",
      signal: this.controller.signal,
      headers: {
        authorization: `Bearer ${daemon.token()}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "events/stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "events/stream",
        params: {
          name: "org.social-harness/inbox.pending",
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        if (!line.startsWith("data:")) continue;
        const method = (JSON.parse(line.slice(5)) as { method?: string }).method;
        if (method === "notifications/events/active") activated();
        if (method === "notifications/events/event") this.observe(performance.now());
      }
    }
  }

  private observe(at: number): void {
    this.events.push(at);
    this.waiters = this.waiters.filter((w) => (at >= w.after ? (w.resolve(at), false) : true));
  }

  /** Resolves with the time of the first event at or after `after`. */
  next(after: number): Promise<number> {
    const seen = this.events.find((at) => at >= after);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ after, resolve }));
  }

  close(): void {
    this.controller.abort();
  }
}

export interface AllGatherFigures {
  readonly members: number;
  readonly groupPost: number;
  readonly allGather: number;
  /**
   * CPU milliseconds per gather answer, from the first answer sent to the result at every member:
   * each answering member, the requester (its result polls included) and the router.
   */
  readonly cpuPerAnswer: { readonly answerer: number; readonly requester: number; readonly router: number };
}

/**
 * The time of the requester's first push event after `after` whose inbox then holds the
 * operation's result: the event is the measure, one read confirms it is the result's.
 */
async function resultIn(daemon: Daemon, watch: PendingWatch, operationId: unknown, after: number): Promise<number> {
  for (;;) {
    const at = await watch.next(after);
    const page = await rawToolCall(daemon, "read_inbox", {});
    const items = page.items as { item: { kind: string; id?: string } }[];
    if (items.some((entry) => entry.item.kind === "collectiveResult" && entry.item.id === operationId)) return at;
    after = at + 1e-3;
  }
}

/** Fails the bench instead of hanging when an item never arrives. */
async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no item arrived within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function allGatherVersusGroupPost(
  net: BenchNetwork,
  members: number,
  rounds: number,
  /** Unmeasured rounds first: every member's JIT and pages settle, as in the cpu section. */
  warmupRounds: number,
): Promise<AllGatherFigures> {
  const names = Array.from({ length: members }, (_, i) => `member${String(i).padStart(2, "0")}`);
  const daemons: Daemon[] = [];
  for (let i = 0; i < names.length; i += 8) {
    daemons.push(...(await Promise.all(names.slice(i, i + 8).map((name) => net.startDaemon(name)))));
  }
  const watches = daemons.map((d) => new PendingWatch(d));
  try {
    await Promise.all(watches.map((w) => w.active));
    const [requester, ...others] = daemons as [Daemon, ...Daemon[]];
    const otherWatches = watches.slice(1);
    const group = `group:${names.join(",")}`;
    // The first send opens the group (every member co-signs its genesis); it is not measured.
    let since = performance.now();
    await rawToolCall(requester, "send_message", { to: group, text: "the group opens" });
    await within(60_000, Promise.all(otherWatches.map((w) => w.next(since))));

    const posts: number[] = [];
    const gathers: number[] = [];
    const routerPid = net.routerProcess?.child.pid;
    const cpu = { answerer: 0, requester: 0, router: 0, answers: 0 };
    for (let round = -warmupRounds; round < rounds; round++) {
      const measured = round >= 0;
      since = performance.now();
      await rawToolCall(requester, "send_message", { to: group, text: `round ${round}` });
      const posted = Math.max(...(await within(60_000, Promise.all(otherWatches.map((w) => w.next(since))))));
      if (measured) posts.push(posted - since);

      since = performance.now();
      const text = JSON.stringify({ all_gather: `round ${round}?`, deadline: 120, requestedSchema: SCHEMA });
      const { operationId } = await rawToolCall(requester, "send_message", { to: group, text });
      await within(60_000, Promise.all(otherWatches.map((w) => w.next(since))));
      // Answers make no inbox items, so the next event at each member after this is the result,
      // which may reach some members before the last answering call has returned.
      const answering = performance.now();
      const cpuBefore = daemons.map((d) => cpuMs(d.process.child.pid!));
      const routerBefore = routerPid === undefined ? 0 : cpuMs(routerPid);
      let lastAnswer = 0;
      await Promise.all(
        others.map(async (member) => {
          await rawToolCall(member, "send_message", { to: group, text: '{"action":"accept","content":{"ok":true}}' });
          lastAnswer = Math.max(lastAnswer, performance.now());
        }),
      );
      // The requester learns of its result from its push stream, as every member does; it used to
      // poll its inbox every 5 ms (a defect since fixed), which loaded the machine it measured.
      const results = await within(
        60_000,
        Promise.all([
          resultIn(requester, watches[0]!, operationId, answering),
          ...otherWatches.map((w) => w.next(answering)),
        ]),
      );
      if (!measured) continue;
      gathers.push(Math.max(...results) - lastAnswer);
      const used = daemons.map((d, i) => cpuMs(d.process.child.pid!) - cpuBefore[i]!);
      cpu.requester += used[0]!;
      cpu.answerer += used.slice(1).reduce((a, b) => a + b, 0);
      cpu.router += routerPid === undefined ? 0 : cpuMs(routerPid) - routerBefore;
      cpu.answers += others.length;
    }
    return {
      members,
      groupPost: median(posts),
      allGather: median(gathers),
      cpuPerAnswer: {
        answerer: cpu.answerer / cpu.answers,
        requester: cpu.requester / cpu.answers,
        router: cpu.router / cpu.answers,
      },
    };
  } finally {
    for (const w of watches) w.close();
    for (const d of daemons) await net.stop(d.process);
  }
}
