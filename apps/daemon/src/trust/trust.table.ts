/** The table of agents the owner trusts. */

export interface TrustedAgentsTable {
  name: string;
  added_at: number;
}
