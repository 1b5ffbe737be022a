/**
 * The grants an API key carries and a role templates (spec, "API key"), as
 * stored and as listed. Shared: the origin enforces them, the edge reads them
 * from its directory. Input validation (which turns a request body into this
 * normalised form) lives with the key and role verbs.
 *
 * Value formats the spec leaves open (documented in docs/reference/keys.md):
 * - `allowed_tables`: lower-case table names, `table`, `schema.table` or
 *   `schema.*`; null means every table.
 * - `max_rows`: a whole number >= 1 capping the rows of any one response
 *   (page or stream); null means no cap beyond the server's.
 * - `quota`: `N/day` or `N/month`, calls counted per calendar day or month in
 *   the server's zone; null means none.
 * - `query_timeout`: seconds (> 0), which can only lower the server's limit.
 * - `budget`: the database work a key may cause (docs/reference/budgets.md);
 *   null means none.
 */
export interface QueryGrantEntry {
  name: string;
  allow_writes: boolean;
}

/**
 * A key's budget of database work: a planner estimate no run may pass, and
 * rows and database seconds per calendar day in the server's zone. Each
 * null means no such limit.
 */
export interface Budget {
  max_estimated_rows: number | null;
  rows_per_day: number | null;
  db_seconds_per_day: number | null;
}

export interface KeyGrants {
  /** Connection names; `['*']` means every connection, `[]` none. */
  connections: string[];
  /** Query names (plain strings are read-only), `'*'` entries, and `{name, allow_writes: true}` objects. */
  queries: Array<string | QueryGrantEntry>;
  /** Existing collection names; no wildcard. */
  collections: string[];
  allow_writes: boolean;
  /** Lower-case leading write keywords; null means every write. */
  allowed_write_ops: string[] | null;
  allowed_tables: string[] | null;
  max_rows: number | null;
  /** `N/day` or `N/month`. */
  quota: string | null;
  max_concurrent: number | null;
  /** Seconds. */
  query_timeout: number | null;
  /** `N/second|minute|hour|day`. */
  rate_limit: string | null;
  /** Canonical IPv4/IPv6 addresses or CIDR ranges; null means every address. */
  allowed_ips: string[] | null;
  budget: Budget | null;
}

export const GRANT_FIELDS = [
  'connections',
  'queries',
  'collections',
  'allow_writes',
  'allowed_write_ops',
  'allowed_tables',
  'max_rows',
  'quota',
  'max_concurrent',
  'query_timeout',
  'rate_limit',
  'allowed_ips',
  'budget',
] as const satisfies ReadonlyArray<keyof KeyGrants>;

/** A key with no grants: reaches nothing, writes nothing, no limits of its own. */
export const emptyGrants = (): KeyGrants => ({
  connections: [],
  queries: [],
  collections: [],
  allow_writes: false,
  allowed_write_ops: null,
  allowed_tables: null,
  max_rows: null,
  quota: null,
  max_concurrent: null,
  query_timeout: null,
  rate_limit: null,
  allowed_ips: null,
  budget: null,
});

/** Whether a key's budget counts its day (rows or database seconds): its runs are checked against the store before they start. */
export const countsDay = (budget: Budget | null): budget is Budget => budget !== null && (budget.rows_per_day !== null || budget.db_seconds_per_day !== null);
