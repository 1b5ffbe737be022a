import { canWrite } from '../../access/reachability.ts';
import { roleHas } from '../../access/capabilities.ts';
import type { Caller } from '../../access/caller.ts';
import type { AppDeps } from '../../deps.ts';
import { discoverQueries } from '../discovery/reachable.ts';
import { type JsonSchema, paramsSchema } from '../discovery/parameter-schema.ts';
import { allowedValues } from './allowed-values.ts';
import { TOOL_FORMATS } from './formatted-rows.ts';
import { type BuiltinTool, toolName } from './names.ts';

/** `saved_query`: a published saved query; `ad_hoc`: SQL the caller writes; `schema`: browsing connections. */
export type ToolKind = 'saved_query' | 'ad_hoc' | 'schema';

/** One tool as a caller sees it, before the MCP wire shape. */
export interface McpTool {
  name: string;
  description: string;
  kind: ToolKind;
  /** JSON Schema of the arguments (an object). */
  inputSchema: JsonSchema & { type: 'object' };
  /** False only when the caller may write through a query whose SQL is a write the server allows. */
  readOnly: boolean;
  /** The saved query behind a `saved_query` tool. */
  query?: string;
  builtin?: BuiltinTool;
}

const CONNECTION_NAME: JsonSchema = { type: 'string', minLength: 1, description: 'The connection to run on (list_connections names them)' };

/** `dry_run` and `format` are reserved names (shared/parameters/types.ts): never parameters of a saved query. */
const DRY_RUN: JsonSchema = {
  type: 'boolean',
  description: "true: run nothing; answer what the run would do and the database planner's estimate of its rows and cost, and whether your key's budget would refuse it",
};

const FORMAT: JsonSchema = {
  type: 'string',
  enum: [...TOOL_FORMATS],
  default: 'json',
  description:
    'How the rows are written in the text content: json (objects), csv, tsv or markdown (a table). ' +
    'Other than json, structuredContent names the columns once and gives each row as an array; csv and tsv take less than half the bytes of json',
};

/**
 * The tools a caller gets (docs/guides/mcp.md): one per published saved
 * query it reaches, decided by the same reachability as `/q`, `/catalog` and
 * `/openapi.json` (drafts never), then the three built-in tools when it may
 * run ad-hoc SQL somewhere. Parameters from the caller's sign-in token
 * (`from_claim`) are never arguments. A query with no default connection
 * takes `connection_name` as an argument; every run tool takes `dry_run`
 * and `format`; a description names its parameters' allowed values.
 * Sorted by query name, then the built-ins.
 */
export async function toolsFor(deps: AppDeps, caller: Caller, maxRows: number): Promise<McpTool[]> {
  const queries = await discoverQueries(deps, caller);
  const tools: McpTool[] = queries.map((q) => {
    const schema = paramsSchema(q.rules ?? {}, q.undeclared) as JsonSchema & { type: 'object'; properties: Record<string, JsonSchema>; required?: string[] };
    if (q.connectionName === null) {
      schema.properties = { ...schema.properties, connection_name: CONNECTION_NAME };
      schema.required = [...(schema.required ?? []), 'connection_name'];
    }
    const allowed = allowedValues(schema.properties);
    schema.properties = { ...schema.properties, dry_run: DRY_RUN, format: FORMAT };
    return {
      name: toolName(q.name),
      description: `${sentence(q.description) ?? `Runs the saved query "${q.name}".`} Returns at most ${maxRows} rows.${allowed ? ` ${allowed}` : ''}`,
      kind: 'saved_query',
      inputSchema: schema,
      readOnly: !(q.write && canWrite(deps.env, caller, q)),
      query: q.name,
    };
  });
  return runsSql(caller) ? [...tools, ...builtinTools(maxRows)] : tools;
}

/** A description ending as a sentence, so the row limit can follow it; null when there is none. */
function sentence(text: string | null): string | null {
  const trimmed = text?.trim();
  if (!trimmed) return null;
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** Who may run ad-hoc SQL on some connection: the server key, an administrator whose role runs data, a key with a `connections` grant. */
function runsSql(caller: Caller): boolean {
  if (caller.admin) return true;
  const administrator = caller.administrator;
  if (administrator) {
    return administrator.role !== null ? roleHas(administrator.role, 'data.run') : Object.values(administrator.memberships).some((role) => roleHas(role, 'data.run'));
  }
  return (caller.key?.grants.connections.length ?? 0) > 0;
}

function builtinTools(maxRows: number): McpTool[] {
  return [
    {
      name: 'list_connections',
      builtin: 'list_connections',
      description: 'The connections you may run SQL on with execute_sql and browse with list_tables: name, database type and whether it is active.',
      kind: 'schema',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      readOnly: true,
    },
    {
      name: 'list_tables',
      builtin: 'list_tables',
      description: 'Tables and views of a connection, with their columns (name, type, nullable).',
      kind: 'schema',
      inputSchema: {
        type: 'object',
        properties: {
          connection_name: CONNECTION_NAME,
          database: { type: 'string', minLength: 1, description: 'Another database on the same server, where the connection type has several' },
        },
        required: ['connection_name'],
        additionalProperties: false,
      },
      readOnly: true,
    },
    {
      name: 'execute_sql',
      builtin: 'execute_sql',
      description:
        `Runs one read-only SQL statement (SELECT, WITH, SHOW, DESCRIBE, EXPLAIN or VALUES) on a connection. ` +
        `Bind values with :name markers and params. Returns at most ${maxRows} rows.`,
      kind: 'ad_hoc',
      inputSchema: {
        type: 'object',
        properties: {
          sql: { type: 'string', minLength: 1, description: 'One read statement' },
          connection_name: CONNECTION_NAME,
          params: { type: 'object', description: 'Values of the :name markers', additionalProperties: true },
          dry_run: DRY_RUN,
          format: FORMAT,
        },
        required: ['sql', 'connection_name'],
        additionalProperties: false,
      },
      readOnly: true,
    },
  ];
}
