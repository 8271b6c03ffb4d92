/** The daemon's numbered, frozen migrations, in execution order. */
import type { Migration } from "kysely/migration";
import { migration0001 } from "./0001_daemon.js";

export const daemonMigrations: Record<string, Migration> = {
  "0001_daemon": migration0001,
};
