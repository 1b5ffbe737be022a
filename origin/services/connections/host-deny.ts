import type { ConnectionSettings } from '../../drivers/types.ts';
import { parseMongoUri } from '../../drivers/mongodb/client.ts';
import { assertHostAllowed } from '../../network/endpoint-deny.ts';

/** `host[:port]` items of a MongoDB URI's host list (`[v6]:port` kept bracketed). */
function mongoHosts(hosts: string): string[] {
  return hosts.split(',').map((item) => {
    const bracket = /^\[([^\]]+)\]/.exec(item);
    return bracket ? bracket[1]! : item.replace(/:\d+$/, '');
  });
}

/**
 * The hosts a probe of `settings` connects to, each checked against
 * SLUICE_ENDPOINT_DENY before the driver is made: 400 `endpoint_denied`.
 * File databases, JDBC URLs and `mongodb+srv://` names (resolved through SRV
 * records by the driver) are not checked (docs/reference/connections.md).
 */
export async function assertProbeHostsAllowed(settings: ConnectionSettings, deny: string[]): Promise<void> {
  const hosts: string[] = [];
  const uri = settings.options.uri;
  if (settings.type === 'mongodb' && typeof uri === 'string' && uri !== '') {
    const parsed = parseMongoUri(uri);
    if (parsed && parsed.scheme === 'mongodb') hosts.push(...mongoHosts(parsed.hosts));
  } else if (settings.type === 'postgres' || settings.type === 'mysql' || settings.type === 'clickhouse' || settings.type === 'mongodb') {
    hosts.push(settings.host || '127.0.0.1');
  }
  for (const host of hosts) await assertHostAllowed(host, deny);
}
