/**
 * The demo's stand-in for a firewall judge: an OpenAI-compatible `POST /v1/chat/completions` on
 * loopback that scores the quoted message with a few keywords, not a model. It exists so the
 * demo's Overview has a judge latency chart and an "allow with guidance" decision; a real policy
 * points its model middleware at a real model server. The port is kept in the data directory so
 * the stored policy's endpoint stays right across runs.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import path from "node:path";

export interface DemoJudge {
  /** The endpoint a policy names (`…/v1`). */
  readonly endpoint: string;
  close(): Promise<void>;
}

const VIOLATING = /ignore (all |your )?(previous )?instructions|api key|password/i;
const UNCERTAIN = /credential|secret|token/i;

function verdictOf(text: string): { choice: "yes" | "no"; probability: number } {
  if (VIOLATING.test(text)) return { choice: "yes", probability: 0.95 };
  if (UNCERTAIN.test(text)) return { choice: "yes", probability: 0.5 };
  return { choice: "no", probability: 0.9 };
}

function textOf(subject: string): string {
  try {
    const parsed = JSON.parse(subject) as { text?: unknown };
    return typeof parsed.text === "string" ? parsed.text : "";
  } catch {
    return subject;
  }
}

function listen(server: Server, port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : undefined);
    });
  });
}

export async function startDemoJudge(dataDir: string): Promise<DemoJudge> {
  const portFile = path.join(dataDir, "demo-judge.port");
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") return void res.writeHead(404).end();
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { messages?: { content?: unknown }[] };
      // The last (user) message is the subject as JSON; the norm in the system prompt is not scored.
      const subject = body.messages?.at(-1)?.content;
      const text = textOf(typeof subject === "string" ? subject : "");
      const content = JSON.stringify(verdictOf(text));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content } }] }));
    });
  });
  const last = existsSync(portFile) ? Number(readFileSync(portFile, "utf8")) : 0;
  const port = (await listen(server, last)) ?? (await listen(server, 0));
  if (port === undefined) throw new Error("the demo judge found no free port on 127.0.0.1");
  writeFileSync(portFile, `${port}\n`);
  return {
    endpoint: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
