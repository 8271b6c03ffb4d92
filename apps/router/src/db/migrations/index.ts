/** The router's numbered, frozen migrations, per dialect (the binary column type and 0003's way differ). */
import type { Migration } from "kysely/migration";
import type { Dialect } from "../database.js";
import { createRouterSchema } from "./0001_router.js";
import { migration0002 } from "./0002_registration_tokens.js";
import { dropRecordsHashIndex } from "./0003_records_hash_not_indexed.js";
import { migration0004 } from "./0004_registration_token_revocation.js";
import { nameWithdrawals } from "./0005_name_withdrawals.js";
import { headsFromRecords } from "./0006_heads_from_records.js";

export function routerMigrations(dialect: Dialect): Record<string, Migration> {
  const binary = dialect === "postgres" ? "bytea" : "blob";
  return {
    "0001_router": createRouterSchema(binary),
    "0002_registration_tokens": migration0002,
    "0003_records_hash_not_indexed": dropRecordsHashIndex(dialect),
    "0004_registration_token_revocation": migration0004,
    "0005_name_withdrawals": nameWithdrawals(dialect),
    "0006_heads_from_records": headsFromRecords(dialect),
  };
}
