/**
 * The webhook section's child processes' way to the bench's receiver: one kept HTTPS connection on
 * loopback, trusting the receiver's self-signed certificate, one request in flight.
 */
import { readFileSync } from "node:fs";
import { Agent, request } from "node:https";

export function loopbackPoster(port: number, caFile: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: readFileSync(caFile, "utf8") });
  return {
    /** POSTs `body` to /hook and resolves with the status once the response has ended. */
    post: (headers: Readonly<Record<string, string>>, body: string | Buffer) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port, method: "POST", path: "/hook", agent, headers }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        });
        req.on("error", reject);
        req.end(body);
      }),
    close: () => agent.destroy(),
  };
}
