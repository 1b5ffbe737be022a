import { ON_CONFLICT, bundleFile } from '../collections/bundle-file.ts';
import { renameFields } from '../collections/rename.ts';
import * as key from '../keys/fields.ts';
import * as role from '../roles/fields.ts';
import * as administrator from '../administrators/fields.ts';
import * as workspace from '../workspaces/fields.ts';
import * as connection from '../connections/fields.ts';
import * as destination from '../destinations/fields.ts';
import * as descriptionFields from '../descriptions/fields.ts';
import * as exportFields from '../exports/fields.ts';
import { configFileSchema } from '../config/file.ts';
import { APPLIED_KINDS } from '../config/kinds.ts';
import { MAX_LIMIT } from '../history/filters.ts';
import { LIST_STATUSES } from '../queries/list.ts';
import * as query from '../queries/fields.ts';
import { validateFields } from '../queries/validate.ts';
import { rekeyFields } from '../../secrets/rekey.ts';
import { type Endpoint, IF_MATCH, type Method, jsonBody, queryParam } from './operations.ts';
import type { ParameterObject } from './parameter-schema.ts';

/**
 * The Management API (`/api/v1`, administrators only) as it exists on this
 * server. Request bodies come from the routes' own zod schemas. A test checks
 * this list against the routes the app registers, both ways.
 */
export const MANAGEMENT_TAGS = [
  { name: 'Management: connections', description: 'Connections: create, read, change, delete, test, browse' },
  { name: 'Management: destinations', description: 'Where exports deliver: bucket prefixes (S3, GCS, R2) and local folders' },
  { name: 'Management: queries', description: 'Saved queries and their versions' },
  { name: 'Management: exports', description: "A saved query's full result delivered to a destination, incrementally, one run at a time" },
  { name: 'Management: history', description: 'Run history across queries' },
  { name: 'Management: settings', description: 'The environment settings the server runs with' },
  { name: 'Management: collections', description: 'Collections of saved queries' },
  { name: 'Management: examples', description: 'A tour over the bundled dataset: saved queries, collections, a role and keys' },
  { name: 'Management: cache', description: 'The saved-query response cache' },
  { name: 'Management: API keys', description: 'Scoped API keys: grants, limits, rotation' },
  { name: 'Management: roles', description: 'Roles: templates of key grants' },
  { name: 'Management: audit', description: 'The hash-chained audit log, its verification and delivery' },
  { name: 'Management: alerts', description: 'Alerts firing now' },
  { name: 'Management: secrets', description: 'Stored passwords under SLUICE_SECRET_KEY' },
  { name: 'Management: administrators', description: 'Named administrators, their roles and sign-in tokens; who is calling' },
  { name: 'Management: workspaces', description: 'Workspaces and their members' },
  { name: 'Management: usage', description: "Every caller's calls and rows against quotas" },
  { name: 'Management: MCP', description: 'The MCP endpoint: whether its port answers, and the tools the caller gets' },
  { name: 'Management: config', description: 'Configuration as code: diff, apply and export a configuration file; managed objects' },
];

const text = { type: 'string' };
const time = { type: 'string', description: 'YYYY-MM-DD, or a date and time with an optional zone (else the server zone)' };
const HISTORY_FILTERS: Record<string, ParameterObject> = {
  query: queryParam('query', text, 'Saved query name'),
  version: queryParam('version', { type: 'integer', minimum: 1 }),
  status: queryParam('status', { type: 'string', enum: ['success', 'error'] }),
  key: queryParam('key', text, "Caller's name"),
  since: queryParam('since', time, 'Inclusive'),
  until: queryParam('until', time, 'Exclusive'),
  limit: queryParam('limit', { type: 'integer', minimum: 1, maximum: MAX_LIMIT }),
  cursor: queryParam('cursor', text, 'next_cursor of the previous page'),
};
const historyFilters = (...names: string[]) => names.map((name) => HISTORY_FILTERS[name]);

type Row = [Method, string, string, string, Partial<Endpoint>?];

const CONNECTIONS = '/api/v1/connections';
const QUERIES = '/api/v1/queries';
const created = { 201: { $ref: '#/components/responses/Json' } };

const connectionRows: Row[] = [
  ['get', '', 'listConnections', 'List connections (never credentials), with live usage'],
  ['post', '', 'createConnection', 'Create a connection', { body: jsonBody(connection.createFields), responses: created }],
  ['get', '/deleted', 'listDeletedConnections', 'Deleted connections, newest first'],
  ['post', '/test', 'testConnection', 'Test a saved connection ({name}) or unsaved fields', { body: jsonBody(connection.probeFields) }],
  ['post', '/databases', 'listConnectionDatabases', 'Databases on the server of a saved connection or unsaved fields', { body: jsonBody(connection.probeFields) }],
  ['get', '/{name}', 'getConnection', 'Read a connection (password masked), with its ETag'],
  ['patch', '/{name}', 'updateConnection', 'Change a connection', { body: jsonBody(connection.updateFields), parameters: [IF_MATCH] }],
  ['delete', '/{name}', 'deleteConnection', 'Delete a connection; a reason is required', { body: jsonBody(connection.removeFields), parameters: [IF_MATCH] }],
  ['get', '/{name}/schema', 'getConnectionSchemaV1', 'Tables and columns with their descriptions, and the connection notes; also of an inactive connection', { parameters: [queryParam('database', text)] }],
  ['get', '/{name}/descriptions', 'getConnectionDescriptions', 'Descriptions of tables and columns, and the connection notes'],
  ['patch', '/{name}/descriptions', 'updateConnectionDescriptions', 'Set the items listed (an empty description removes one) and the notes', { body: jsonBody(descriptionFields.patchFields) }],
  ['post', '/{name}/descriptions/import', 'importConnectionDescriptions', "Copy the database's own table and column comments into the descriptions"],
];

const exampleRows: Row[] = [
  ['get', '', 'getExamples', 'The examples tour: loaded, partial, and the example objects by name'],
  ['post', '', 'installExamples', 'Install what is missing of the tour; key_secrets shows each new key secret once'],
  ['delete', '', 'removeExamples', 'Remove every example object; keys_still_granted names keys of your own granting one'],
];

const destinationRows: Row[] = [
  ['get', '', 'listDestinations', 'List destinations (never credentials)'],
  ['post', '', 'createDestination', 'Create a destination', { body: jsonBody(destination.createFields), responses: created }],
  ['post', '/test', 'testDestination', 'Write and remove a probe object for a saved destination ({name}) or unsaved fields', { body: jsonBody(destination.probeFields) }],
  ['get', '/{name}', 'getDestination', 'Read a destination (secret masked), with its ETag'],
  ['patch', '/{name}', 'updateDestination', 'Change a destination', { body: jsonBody(destination.updateFields), parameters: [IF_MATCH] }],
  ['delete', '/{name}', 'deleteDestination', 'Delete a destination no export uses', { parameters: [IF_MATCH] }],
  ['post', '/{name}/test', 'testSavedDestination', 'Write and remove a probe object under the saved destination'],
];

const queryRows: Row[] = [
  [
    'get',
    '',
    'listQueries',
    'List saved queries (summaries, no SQL)',
    {
      parameters: [
        queryParam('search', text, 'In name, description or tags'),
        queryParam('collection', text),
        queryParam('connection', text),
        queryParam('status', { type: 'string', enum: [...LIST_STATUSES] }),
      ],
    },
  ],
  ['post', '', 'createQuery', 'Create a saved query with its first version', { body: jsonBody(query.createFields), responses: created }],
  ['post', '/validate', 'validateQuery', 'Check a definition without saving it', { body: jsonBody(validateFields) }],
  ['get', '/{name}', 'getQuery', 'Read a query with every version and its SQL'],
  ['patch', '/{name}', 'moveQuery', 'Move a query to a collection (or none)', { body: jsonBody(query.moveFields), parameters: [IF_MATCH] }],
  ['delete', '/{name}', 'deleteQuery', 'Delete every version of a query', { parameters: [IF_MATCH] }],
  ['post', '/{name}/versions', 'addQueryVersion', 'Add a version (a draft unless publish is true)', { body: jsonBody(query.versionFields), parameters: [IF_MATCH], responses: created }],
  ['get', '/{name}/versions/{version}', 'getQueryVersion', 'Read one version'],
  ['patch', '/{name}/versions/{version}', 'setQueryVersionCacheTtl', 'Change the cache_ttl of a version in place', { body: jsonBody(query.cacheTtlFields), parameters: [IF_MATCH] }],
  ['delete', '/{name}/versions/{version}', 'deleteQueryVersion', 'Delete one version', { parameters: [IF_MATCH] }],
  ['post', '/{name}/publish', 'publishQueryVersion', 'Publish a version (a rollback when older)', { body: jsonBody(query.publishFields), parameters: [IF_MATCH] }],
  ['post', '/{name}/unpublish', 'unpublishQuery', 'Unpublish the query; every version is kept', { body: jsonBody(query.unpublishFields, false), parameters: [IF_MATCH] }],
  ['get', '/{name}/versions/{version}/flow', 'getQueryVersionFlow', 'Tables and joins a version touches, and its formatted SQL'],
  ['get', '/{name}/history', 'listQueryHistory', 'Runs of the query, newest first', { parameters: historyFilters('version', 'status', 'key', 'since', 'until', 'limit', 'cursor') }],
];

const exportRows: Row[] = [
  ['get', '', 'listExports', 'List exports with their watermark and whether one runs now'],
  ['post', '', 'createExport', 'Create an export (checked against its destination and published query)', { body: jsonBody(exportFields.createFields), responses: created }],
  ['get', '/{name}', 'getExport', 'Read an export, with its ETag'],
  ['patch', '/{name}', 'updateExport', 'Change an export; {watermark} rewinds or resets it', { body: jsonBody(exportFields.updateFields), parameters: [IF_MATCH] }],
  ['delete', '/{name}', 'deleteExport', 'Delete an export (409 export_running while it runs)', { parameters: [IF_MATCH] }],
  ['post', '/{name}/runs', 'runExport', 'Run an export now: 201 {id, object, rows, bytes, watermark}; 409 export_running with retry_after', { responses: created }],
  ['get', '/{name}/runs', 'listExportRuns', 'Runs of the export, newest first', { parameters: [queryParam('limit', { type: 'integer', minimum: 1, maximum: 1000 })] }],
];

const flag = (name: string, description: string) => queryParam(name, { type: 'boolean' }, description);
const configFile = jsonBody(configFileSchema);
const configRows: Row[] = [
  ['post', '/diff', 'diffConfig', 'What applying a configuration file (JSON, or YAML as application/yaml) would change, per kind', { body: configFile, parameters: [flag('prune', 'Include deletes of managed objects the file lacks')] }],
  [
    'post',
    '/apply',
    'applyConfig',
    'Apply a configuration file in one transaction, all or nothing (owners); 400 invalid_config lists every problem',
    { body: configFile, parameters: [flag('prune', 'Delete managed objects the file lacks, in the sections it has'), flag('dry_run', 'Roll back: only the plan')] },
  ],
  ['get', '/managed', 'listManagedObjects', 'Managed objects by kind, and whether the server is locked to its configuration'],
  [
    'get',
    '/export',
    'exportConfig',
    'The objects of the workspace as a configuration file (owners); YAML with Accept: application/yaml',
    { parameters: [queryParam('kinds', text, `Comma-separated: ${APPLIED_KINDS.join(', ')}`), flag('examples', "Include the examples' connections and queries")] },
  ],
];

const historyRows: Row[] = [
  ['get', '', 'listHistory', 'Every recorded run, newest first', { parameters: historyFilters('query', 'version', 'status', 'key', 'since', 'until', 'limit', 'cursor') }],
  [
    'delete',
    '',
    'forgetCaller',
    "Forget a caller: delete their runs, events and usage counts (owners; audited by the name's SHA-256)",
    { parameters: [queryParam('caller', text, "The caller's name", true), queryParam('dry_run', { type: 'boolean' }, 'Only count')] },
  ],
];

const collectionRows: Row[] = [
  ['get', '', 'listCollections', 'Collections with their queries and grant holders, and the uncollected queries'],
  ['patch', '/{name}', 'renameCollection', 'Rename a collection (merge: true into an existing one)', { body: jsonBody(renameFields) }],
  ['get', '/{name}/postman', 'getCollectionPostman', 'A Postman v2.1 collection file of its published queries'],
  ['get', '/{name}/bundle', 'getCollectionBundle', 'The collection bundle (sluice-bundle): the newest version of each query, no history, keys, roles or connection details'],
  [
    'post',
    '/import',
    'importCollectionBundle',
    'Import a collection bundle (JSON, or YAML as application/yaml), all or nothing; saves are audited save_query with source: import',
    {
      body: jsonBody(bundleFile),
      parameters: [
        queryParam('dry_run', { type: 'boolean' }, 'Only report what would be done'),
        queryParam('on_conflict', { type: 'string', enum: [...ON_CONFLICT] }, 'An existing query of the same name: fail (default), skip it, or add a new version (never moving it from another collection)'),
        queryParam('collection', text, "File the queries in this collection instead of the bundle's own"),
      ],
    },
  ],
];

const cacheRows: Row[] = [
  ['get', '/entries', 'listCacheEntries', 'Cache entries (metadata only), soonest expiry first'],
  ['delete', '/entries', 'evictCacheEntries', 'Evict every entry'],
  [
    'get',
    '/entries/{key}',
    'getCacheEntry',
    'Read one cached body, with its own content type',
    { responses: { 200: { description: 'The cached body', content: { '*/*': { schema: {} } } } } },
  ],
  ['delete', '/entries/{key}', 'evictCacheEntry', 'Evict one entry'],
];

const keyRows: Row[] = [
  ['get', '', 'listApiKeys', 'List API keys (never secrets), with effective limits and usage'],
  ['post', '', 'createApiKey', 'Create a key from explicit grants or a role; the secret is shown once', { body: jsonBody(key.createKeyFields), responses: created }],
  ['get', '/{name}', 'getApiKey', 'Read a key, with its ETag'],
  ['patch', '/{name}', 'updateApiKey', 'Change a key (null resets a field; active: false revokes it)', { body: jsonBody(key.updateKeyFields), parameters: [IF_MATCH] }],
  ['delete', '/{name}', 'deleteApiKey', 'Revoke and remove a key', { parameters: [IF_MATCH] }],
  ['post', '/{name}/rotate', 'rotateApiKey', 'New secret (shown once); the old one lasts grace_minutes', { body: jsonBody(key.rotateFields, false), parameters: [IF_MATCH] }],
  ['delete', '/{name}/previous', 'endPreviousApiKeySecret', "End a rotation's previous secret now", { parameters: [IF_MATCH] }],
];

const roleRows: Row[] = [
  ['get', '', 'listRoles', 'List roles with keys_created'],
  ['post', '', 'createRole', 'Create a role (a template of key grants)', { body: jsonBody(role.createRoleFields), responses: created }],
  ['get', '/{name}', 'getRole', 'Read a role, with its ETag'],
  ['patch', '/{name}', 'updateRole', 'Change a role; keys created from it are untouched', { body: jsonBody(role.updateRoleFields), parameters: [IF_MATCH] }],
  ['delete', '/{name}', 'deleteRole', 'Delete a role; keys created from it are untouched', { parameters: [IF_MATCH] }],
];

const administratorRows: Row[] = [
  ['get', '', 'listAdministrators', 'List administrators with their token counts'],
  ['post', '', 'createAdministrator', 'Create an administrator (owners only)', { body: jsonBody(administrator.createFields), responses: created }],
  ['get', '/{name}', 'getAdministrator', 'Read an administrator, with its ETag'],
  ['patch', '/{name}', 'updateAdministrator', 'Change role, email or active (owners only)', { body: jsonBody(administrator.updateFields), parameters: [IF_MATCH] }],
  ['delete', '/{name}', 'deleteAdministrator', 'Remove an administrator and their tokens (owners only)', { parameters: [IF_MATCH] }],
  ['get', '/{name}/tokens', 'listAdministratorTokens', 'Tokens (never secrets)'],
  ['post', '/{name}/tokens', 'issueAdministratorToken', 'Issue a token; the secret is shown once', { body: jsonBody(administrator.issueFields, false), responses: created }],
  ['delete', '/{name}/tokens/{id}', 'revokeAdministratorToken', 'Revoke one token'],
];

const workspaceRows: Row[] = [
  ['get', '', 'listWorkspaces', 'Workspaces the caller may see'],
  ['post', '', 'createWorkspace', 'Create a workspace (owners only)', { body: jsonBody(workspace.createFields), responses: created }],
  ['get', '/{name}', 'getWorkspace', 'Read a workspace, with its ETag'],
  ['patch', '/{name}', 'updateWorkspace', 'Change its description (owners only)', { body: jsonBody(workspace.updateFields), parameters: [IF_MATCH] }],
  ['delete', '/{name}', 'deleteWorkspace', 'Delete an empty workspace other than default (owners only)', { parameters: [IF_MATCH] }],
  ['get', '/{name}/members', 'listWorkspaceMembers', 'Members and their roles'],
  ['put', '/{name}/members/{admin}', 'putWorkspaceMember', "Add a member or change their role (server or workspace owner)", { body: jsonBody(workspace.memberFields) }],
  ['delete', '/{name}/members/{admin}', 'removeWorkspaceMember', 'Remove a member (server or workspace owner)'],
];

const auditRows: Row[] = [
  [
    'get',
    '',
    'listAudit',
    'Audit entries, newest first, with total, actions and retention',
    {
      parameters: [
        queryParam('action', text),
        queryParam('actor', text),
        queryParam('target', text),
        queryParam('q', text, 'Text in the target or the changes'),
        queryParam('limit', { type: 'integer', minimum: 1, maximum: 1000 }),
        queryParam('cursor', text, 'next_cursor of the previous page'),
      ],
    },
  ],
  ['get', '/verify', 'verifyAudit', 'Walk the hash chain from its anchor'],
  ['get', '/delivery', 'getAuditDelivery', 'Delivery progress per output'],
];

const expand = (base: string, tag: string, rows: Row[]): Endpoint[] =>
  rows.map(([method, path, id, summary, extra]) => ({ method, path: base + path, id, tag, summary, family: 'management', ...extra }));

export const MANAGEMENT_ENDPOINTS: Endpoint[] = [
  ...expand(CONNECTIONS, 'Management: connections', connectionRows),
  ...expand('/api/v1/destinations', 'Management: destinations', destinationRows),
  ...expand(QUERIES, 'Management: queries', queryRows),
  ...expand('/api/v1/exports', 'Management: exports', exportRows),
  ...expand('/api/v1/history', 'Management: history', historyRows),
  ...expand('/api/v1/settings', 'Management: settings', [['get', '', 'getSettings', 'Every environment variable the server reads, by section; secrets only as configured']]),
  ...expand('/api/v1/collections', 'Management: collections', collectionRows),
  ...expand('/api/v1/examples', 'Management: examples', exampleRows),
  ...expand('/api/v1/cache', 'Management: cache', cacheRows),
  ...expand('/api/v1/api-keys', 'Management: API keys', keyRows),
  ...expand('/api/v1/roles', 'Management: roles', roleRows),
  ...expand('/api/v1/administrators', 'Management: administrators', administratorRows),
  ...expand('/api/v1/me', 'Management: administrators', [['get', '', 'getMe', 'Who is calling: name, role, via, capabilities, data access, workspace, workspaces']]),
  ...expand('/api/v1/workspaces', 'Management: workspaces', workspaceRows),
  ...expand('/api/v1/usage/quotas', 'Management: usage', [['get', '', 'getQuotaUsage', "Every caller's calls and rows for the current day and month, with each key's quota"]]),
  ...expand('/api/v1/audit', 'Management: audit', auditRows),
  ...expand('/api/v1/config', 'Management: config', configRows),
  ...expand('/api/v1/mcp', 'Management: MCP', [
    ['get', '/status', 'getMcpStatus', '{reachable, port}: a plain TCP connect to SLUICE_MCP_PORT, else the server port'],
    ['get', '/tools', 'listMcpTools', 'The MCP tools the caller gets: name, description, kind, params, read_only'],
  ]),
  ...expand('/api/v1/alerts', 'Management: alerts', [['get', '', 'listAlerts', 'Alerts firing now']]),
  ...expand('/api/v1/settings/rekey', 'Management: secrets', [
    ['post', '', 'rekeySecrets', 'Report ({check: true}) or re-encrypt every stored password under the first key', { body: jsonBody(rekeyFields, false) }],
  ]),
];
