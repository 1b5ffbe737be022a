import { field, h } from '../dom.ts';

/** Comma- or newline-separated entries (names may hold spaces). */
export const split = (text: string) => text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean);

const names = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : x.name)) : []);
const writable = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => typeof x === 'object' && x.allow_writes).map((x) => x.name) : []);

/**
 * The grants of a key or role: queries (plain names read, those under "May
 * write through" also write), collections, connections. Left empty, a list
 * is none.
 */
export function grantFields(item: any | null) {
  const inputs = {
    queries: h('input', { value: names(item?.queries).join(', '), placeholder: 'daily sales, *' }),
    writes: h('input', { value: writable(item?.queries).join(', ') }),
    collections: h('input', { value: names(item?.collections).join(', '), placeholder: 'reports, finance' }),
    connections: h('input', { value: names(item?.connections).join(', '), placeholder: 'warehouse or *' }),
  };
  return {
    el: [field('Queries', inputs.queries, 'Comma-separated; * for all'), field('May write through', inputs.writes, 'Queries that may write (each also granted)'), field('Collections', inputs.collections), field('Connections', inputs.connections)],
    value(): Record<string, unknown> {
      const writes = split(inputs.writes.value);
      return {
        queries: [...split(inputs.queries.value).filter((q) => !writes.includes(q)), ...writes.map((name) => ({ name, allow_writes: true }))],
        collections: split(inputs.collections.value),
        connections: split(inputs.connections.value),
      };
    },
  };
}

/**
 * A key's or role's limits, write settings and budget, as the grants API
 * names them. An empty field is none (null: every address, no limit, the server's time
 * limit, every write operation and table); **No address** is `allowed_ips: []`,
 * which admits no address at all.
 */
export function limitFields(item: any | null) {
  const text = (v: unknown) => (v === null || v === undefined ? '' : Array.isArray(v) ? v.join(', ') : String(v));
  const inputs = {
    allowed_ips: h('input', { value: text(item?.allowed_ips), placeholder: '203.0.113.0/24, 10.0.0.1' }),
    rate_limit: h('input', { value: text(item?.rate_limit), placeholder: '10/second' }),
    quota: h('input', { value: text(item?.quota), placeholder: '1000/day' }),
    max_rows: h('input', { type: 'number', min: 1, value: text(item?.max_rows) }),
    max_concurrent: h('input', { type: 'number', min: 1, value: text(item?.max_concurrent) }),
    query_timeout: h('input', { type: 'number', min: 0, step: 'any', value: text(item?.query_timeout) }),
    allowed_write_ops: h('input', { value: text(item?.allowed_write_ops), placeholder: 'insert, update' }),
    allowed_tables: h('input', { value: text(item?.allowed_tables), placeholder: 'staging.*, events' }),
    max_estimated_rows: h('input', { type: 'number', min: 1, value: text(item?.budget?.max_estimated_rows) }),
    rows_per_day: h('input', { type: 'number', min: 1, value: text(item?.budget?.rows_per_day) }),
    db_seconds_per_day: h('input', { type: 'number', min: 0, step: 'any', value: text(item?.budget?.db_seconds_per_day) }),
  };
  const allowWrites = h('input', { type: 'checkbox', checked: item?.allow_writes ?? false });
  const noAddress = h('input', { type: 'checkbox', checked: Array.isArray(item?.allowed_ips) && item.allowed_ips.length === 0 });
  const addressesOff = () => (inputs.allowed_ips.disabled = noAddress.checked);
  noAddress.addEventListener('change', addressesOff);
  addressesOff();
  return {
    el: h('fieldset', { class: 'grid-form' },
      h('legend', {}, 'Limits and writes'),
      field('Allowed addresses', inputs.allowed_ips, 'IP addresses or CIDR ranges; empty: every address'),
      field('No address', noAddress, 'Admit no address: every request is refused'),
      field('Rate limit', inputs.rate_limit, 'N/second, N/minute, N/hour or N/day'),
      field('Quota', inputs.quota, 'N/day or N/month'),
      field('Max rows', inputs.max_rows, 'Per response'),
      field('Max concurrent', inputs.max_concurrent),
      field('Time limit (s)', inputs.query_timeout),
      field('Allow writes', allowWrites, 'Through the connections granted'),
      field('Write operations', inputs.allowed_write_ops, 'SQL keywords; empty: every write'),
      field('Writable tables', inputs.allowed_tables, 'table, schema.table or schema.*; empty: every table'),
      field('Max estimated rows', inputs.max_estimated_rows, "Budget: refuse a run the database's planner estimates above this"),
      field('Rows per day', inputs.rows_per_day, 'Budget: rows returned per day'),
      field('Database seconds per day', inputs.db_seconds_per_day, 'Budget: database time per day'),
    ),
    value(): Record<string, unknown> {
      const list = (input: HTMLInputElement) => (input.value.trim() ? split(input.value) : null);
      const number = (input: HTMLInputElement) => (input.value.trim() ? Number(input.value) : null);
      const str = (input: HTMLInputElement) => input.value.trim() || null;
      const budget = { max_estimated_rows: number(inputs.max_estimated_rows), rows_per_day: number(inputs.rows_per_day), db_seconds_per_day: number(inputs.db_seconds_per_day) };
      return {
        allowed_ips: noAddress.checked ? [] : list(inputs.allowed_ips),
        rate_limit: str(inputs.rate_limit),
        quota: str(inputs.quota),
        max_rows: number(inputs.max_rows),
        max_concurrent: number(inputs.max_concurrent),
        query_timeout: number(inputs.query_timeout),
        allow_writes: allowWrites.checked,
        allowed_write_ops: list(inputs.allowed_write_ops),
        allowed_tables: list(inputs.allowed_tables),
        budget: Object.values(budget).some((limit) => limit !== null) ? budget : null,
      };
    },
  };
}
