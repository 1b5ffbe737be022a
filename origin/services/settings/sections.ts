/**
 * The sections of `GET /api/v1/settings`. A variable goes to the first
 * section whose pattern matches its name, else to `other`: a variable added
 * to origin/env.ts later shows up without a change here.
 */
export interface SectionSpec {
  id: string;
  title: string;
  description: string;
  pattern: RegExp;
}

export const SECTIONS: readonly SectionSpec[] = [
  {
    id: 'server',
    title: 'Server',
    description: 'Where the origin listens and where it keeps its metadata store and files.',
    pattern: /^SLUICE_(HOST|PORT|DATA_DIR|DATABASE_URL|EXAMPLES|TRUST_PROXY|CORS_ORIGINS|EXPORT_DIRS|FILE_DIRS)$/,
  },
  {
    id: 'security',
    title: 'Security',
    description: 'Keys, tokens, encryption of stored passwords and rate limits.',
    pattern: /^SLUICE_(API_KEY|SECRET_KEY|SECRET_REFS|EDGE_SECRET|ALLOWED_IPS|REQUIRE_LEAST_PRIVILEGE)$|RATE_LIMIT|QUOTA/,
  },
  {
    id: 'queries',
    title: 'Queries',
    description: 'What a statement may do and how much it may return.',
    pattern: /^SLUICE_(ALLOW_WRITES|QUERY_TIMEOUT|MAX_PAGE_SIZE|VALUES_MAX)$|^SLUICE_STREAM_/,
  },
  {
    id: 'pool',
    title: 'Connection pool',
    description: 'Database sessions kept open between runs.',
    pattern: /^SLUICE_POOL_/,
  },
  {
    id: 'history',
    title: 'History and audit',
    description: 'How many runs are shown and kept, and the audit log.',
    pattern: /^SLUICE_(HISTORY|AUDIT)_/,
  },
  {
    id: 'cache',
    title: 'Cache',
    description: 'The response cache: process memory, or Redis shared by every origin.',
    pattern: /^SLUICE_(REDIS|CACHE)_/,
  },
  {
    id: 'observability',
    title: 'Observability',
    description: 'Logs, slow-query warnings and the metrics endpoint.',
    pattern: /^SLUICE_(JSON_LOGS|LOG_LEVEL|SLOW_QUERY_THRESHOLD)$|^SLUICE_METRICS_/,
  },
  {
    id: 'tracing',
    title: 'Tracing',
    description: 'OpenTelemetry traces: where spans are sent, how traces are sampled, and the trace viewer the console links to.',
    pattern: /^OTEL_|^SLUICE_(OTEL_SQL_TEXT|TRACE_URL)$/,
  },
  {
    id: 'mcp',
    title: 'MCP',
    description: 'The MCP endpoint for AI agents: its own port and how many rows and bytes a tool call returns.',
    pattern: /^SLUICE_MCP_/,
  },
  {
    id: 'results',
    title: 'Stored results',
    description: 'Where results are written in chunks, how long their links and files last, and how many run at once.',
    pattern: /^SLUICE_RESULTS?_/,
  },
  {
    id: 'config',
    title: 'Configuration as code',
    description: 'The configuration file applied at startup.',
    pattern: /^SLUICE_CONFIG_/,
  },
];

export const OTHER_SECTION: Omit<SectionSpec, 'pattern'> = {
  id: 'other',
  title: 'Other',
  description: 'Every other variable the server reads.',
};

export function sectionOf(variable: string): Omit<SectionSpec, 'pattern'> {
  return SECTIONS.find((section) => section.pattern.test(variable)) ?? OTHER_SECTION;
}
