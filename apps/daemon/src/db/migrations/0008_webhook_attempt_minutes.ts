/**
 * The Overview reads webhook attempts only as per-subscription counts over buckets that are whole
 * minutes (an hour of minutes, a day of quarter hours, a week of two hours), so one row per attempt
 * (an insert, an index entry and an AUTOINCREMENT counter in every delivery's commit) becomes one
 * row per subscription and minute, counted up in place. Past attempts are folded into their minutes.
 */
import { sql, type Kysely } from "kysely";

export const migration0008 = {
  async up(db: Kysely<any>): Promise<void> {
    await sql`CREATE TABLE webhook_attempt_minutes (
      subscription_id TEXT NOT NULL,
      minute INTEGER NOT NULL,
      delivered INTEGER NOT NULL,
      failed INTEGER NOT NULL,
      retries INTEGER NOT NULL,
      latency_ms INTEGER NOT NULL,
      PRIMARY KEY (subscription_id, minute)
    ) WITHOUT ROWID`.execute(db);
    await sql`INSERT INTO webhook_attempt_minutes
      SELECT subscription_id, (at / 60000) * 60000, sum(outcome = 'delivered'), sum(outcome <> 'delivered'),
        sum(retry), sum(latency_ms)
      FROM webhook_attempts GROUP BY subscription_id, at / 60000`.execute(db);
    await db.schema.dropTable("webhook_attempts").execute();
  },
};
