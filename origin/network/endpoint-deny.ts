import { type LookupAddress, type LookupAllOptions, type LookupOptions, lookup } from 'node:dns';
import { isIP } from 'node:net';
import { ipMatches, parseCidr } from '../../shared/access/cidr.ts';
import { SluiceError } from '../errors.ts';

/**
 * Link-local ranges (where cloud metadata services answer: 169.254.169.254 on
 * AWS, Azure, GCP) and the other metadata addresses (AWS's IPv6 fd00:ec2::254,
 * Alibaba's 100.100.100.200): what SLUICE_ENDPOINT_DENY denies when unset.
 */
export const DEFAULT_ENDPOINT_DENY = ['169.254.0.0/16', 'fe80::/10', 'fd00:ec2::254', '100.100.100.200'];

/** Ranges of SLUICE_ENDPOINT_DENY that do not parse (for the startup check). */
export const malformedRanges = (ranges: string[]): string[] => ranges.filter((range) => parseCidr(range) === null);

/** The error a denied endpoint gets: 400, before any connection. Neither the address nor the range is told. */
export const endpointDenied = (host: string) =>
  new SluiceError(
    'endpoint_denied',
    `The endpoint ${host} is in an address range this server never connects to (SLUICE_ENDPOINT_DENY); use another endpoint, or change the setting`,
  );

/** `[::1]` as `::1`: a URL's host as an address. */
const bare = (host: string) => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

/** Whether `address` (an IP literal) is denied. */
export const isDenied = (address: string, deny: string[]): boolean => ipMatches(bare(address), deny);

/** Throws `endpointDenied` when `host` is an IP literal inside `deny` (a name is checked as it resolves: `guardedLookup`). */
export function assertLiteralAllowed(host: string, deny: string[]): void {
  if (isIP(bare(host)) !== 0 && isDenied(host, deny)) throw endpointDenied(host);
}

/** The error `guardedLookup` fails a connection with: a socket error to the client, told apart by its code. */
class DeniedLookup extends Error {
  readonly code = 'ENDPOINT_DENIED';
  constructor(readonly host: string) {
    super(`${host} resolves into SLUICE_ENDPOINT_DENY`);
    this.name = 'DeniedLookup';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for an http(s) Agent: resolves as usual, then fails the
 * connection when any address the name resolves to is denied. The socket
 * connects to the address this returned, the one checked, so a name that
 * resolves elsewhere the second time (DNS rebinding) cannot slip past.
 * (An IP literal never reaches a lookup: see `assertLiteralAllowed`.)
 */
export function guardedLookup(deny: string[]) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    lookup(hostname, { ...options, all: true } as LookupAllOptions, (err, addresses) => {
      if (err) return callback(err, '');
      if (addresses.some((a) => isDenied(a.address, deny))) return callback(new DeniedLookup(hostname), '');
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** `endpointDenied` when `err`, or one of its causes (an SDK may wrap the socket's error), is a lookup `guardedLookup` refused. */
export function deniedIn(err: unknown): SluiceError | null {
  for (let at = err, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth++) {
    if (at instanceof DeniedLookup) return endpointDenied(at.host);
  }
  return null;
}

/**
 * Resolves `host` (an address is taken as it is) and throws `endpointDenied`
 * when any of its addresses is denied. For clients whose connections cannot
 * be handed a checked address (database drivers resolve by themselves): a
 * name that resolves elsewhere between this check and the connection is not
 * caught. A name that does not resolve passes: the connection then fails.
 */
export async function assertHostAllowed(host: string, deny: string[]): Promise<void> {
  const address = bare(host);
  if (isIP(address) !== 0) return assertLiteralAllowed(address, deny);
  const addresses = await new Promise<LookupAddress[]>((resolve) => lookup(address, { all: true }, (err, found) => resolve(err ? [] : found)));
  if (addresses.some((a) => isDenied(a.address, deny))) throw endpointDenied(host);
}
