/** The machine's PostgreSQL for tests (trust auth, database test), and dropping the schemas a test made. */
import pg from "pg";

export const TEST_POSTGRES = "postgres://postgres@127.0.0.1:5432/test";

/** Drops each schema with everything in it; a schema that was never made is fine. */
export async function dropTestSchemas(...schemas: readonly string[]): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES });
  await client.connect();
  try {
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
