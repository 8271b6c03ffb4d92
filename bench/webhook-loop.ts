/**
 * The webhook section's anchors, in a process of their own as every deliverer is: a bare HTTPS POST
 * loop, one in flight, to the bench's receiver, and the same loop with one durable SQLite commit
 * (WAL, synchronous=FULL) after each 2xx. Run as a child: `node webhook-loop.js <port> <ca file>
 * <body bytes> <warm-up posts> <posts> <database file>`; it prints its figures as one JSON line.
 */
import Database from "better-sqlite3";
import { performance } from "node:perf_hooks";
import { loopbackPoster } from "./loopback-https.js";

const [port, caFile, bodyBytes, warm, items, file] = process.argv.slice(2);
const count = Number(items);
const receiver = loopbackPoster(Number(port), caFile!);
const body = JSON.stringify({ bare: true, pad: "x".repeat(Math.max(0, Number(bodyBytes) - 24)) });
const post = () => receiver.post({ "content-type": "application/json" }, body);

for (let i = 0; i < Number(warm); i++) await post();
const bareStart = performance.now();
for (let i = 0; i < count; i++) await post();
const barePosts = count / ((performance.now() - bareStart) / 1000);

const db = new Database(file);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = FULL");
db.exec("CREATE TABLE retired (id INTEGER PRIMARY KEY, at INTEGER NOT NULL)");
const retire = db.prepare("INSERT INTO retired (at) VALUES (?)");
const cpuBefore = process.cpuUsage();
const durableStart = performance.now();
for (let i = 0; i < count; i++) {
  await post();
  retire.run(Date.now());
}
const durablePosts = count / ((performance.now() - durableStart) / 1000);
const used = process.cpuUsage(cpuBefore);
db.close();
receiver.close();
console.log(JSON.stringify({ barePosts, durablePosts, cpuPerDurablePost: (used.user + used.system) / 1000 / count }));
