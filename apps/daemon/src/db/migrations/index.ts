/** The daemon's numbered, frozen migrations, in execution order. */
import type { Migration } from "kysely/migration";
import { migration0001 } from "./0001_daemon.js";
import { migration0002 } from "./0002_collectives.js";
import { migration0003 } from "./0003_webhooks.js";
import { migration0004 } from "./0004_firewall.js";
import { migration0005 } from "./0005_observe.js";
import { migration0006 } from "./0006_retire_settled_intents.js";
import { migration0007 } from "./0007_intents_unindexed.js";
import { migration0008 } from "./0008_webhook_attempt_minutes.js";
import { migration0009 } from "./0009_occurrences_without_rowid.js";
import { migration0010 } from "./0010_inbox_pending_partial.js";
import { migration0011 } from "./0011_intents_without_rowid.js";
import { migration0012 } from "./0012_records_hash_lookup.js";
import { migration0013 } from "./0013_inbox_without_counter.js";

export const daemonMigrations: Record<string, Migration> = {
  "0001_daemon": migration0001,
  "0002_collectives": migration0002,
  "0003_webhooks": migration0003,
  "0004_firewall": migration0004,
  "0005_observe": migration0005,
  "0006_retire_settled_intents": migration0006,
  "0007_intents_unindexed": migration0007,
  "0008_webhook_attempt_minutes": migration0008,
  "0009_occurrences_without_rowid": migration0009,
  "0010_inbox_pending_partial": migration0010,
  "0011_intents_without_rowid": migration0011,
  "0012_records_hash_lookup": migration0012,
  "0013_inbox_without_counter": migration0013,
};
