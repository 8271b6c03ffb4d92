/** SQL for registered agents and the router's own signing key. */
import type { Kysely } from "kysely";
import type { RouterDatabase } from "../db/database.js";

export interface RegisteredAgent {
  readonly name: string;
  readonly publicKey: Uint8Array;
}

export async function findAgent(db: Kysely<RouterDatabase>, name: string): Promise<RegisteredAgent | undefined> {
  const row = await db.selectFrom("agents").select(["name", "public_key"]).where("name", "=", name).executeTakeFirst();
  return row === undefined ? undefined : { name: row.name, publicKey: new Uint8Array(row.public_key) };
}

export async function findAgents(
  db: Kysely<RouterDatabase>,
  names: readonly string[],
): Promise<Map<string, RegisteredAgent>> {
  if (names.length === 0) return new Map();
  const rows = await db.selectFrom("agents").select(["name", "public_key"]).where("name", "in", names).execute();
  return new Map(rows.map((r) => [r.name, { name: r.name, publicKey: new Uint8Array(r.public_key) }]));
}

/** Inserts the agent unless the name is taken; returns whoever holds the name afterwards. */
export async function registerAgent(
  db: Kysely<RouterDatabase>,
  agent: RegisteredAgent,
  now: number,
): Promise<RegisteredAgent> {
  await db
    .insertInto("agents")
    .values({ name: agent.name, public_key: Buffer.from(agent.publicKey), registered_at: now })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
  const holder = await findAgent(db, agent.name);
  if (holder === undefined) throw new Error(`agent ${agent.name} vanished after registration`);
  return holder;
}

export async function loadRouterSeed(
  db: Kysely<RouterDatabase>,
  generate: () => Uint8Array,
  now: number,
): Promise<Uint8Array> {
  await db
    .insertInto("router_keys")
    .values({ id: 1, seed: Buffer.from(generate()), created_at: now })
    .onConflict((oc) => oc.column("id").doNothing())
    .execute();
  const row = await db.selectFrom("router_keys").select("seed").where("id", "=", 1).executeTakeFirstOrThrow();
  return new Uint8Array(row.seed);
}
