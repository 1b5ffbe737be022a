import { describe, expect, it } from 'vitest';
import { DEFAULT_ENDPOINT_DENY, assertHostAllowed, assertLiteralAllowed, deniedIn, guardedLookup, isDenied } from '../../origin/network/endpoint-deny.ts';

/** SLUICE_ENDPOINT_DENY's checks: literal addresses, names as they resolve (loopback names only), the lookup handed to agents. */

const lookupWith = (deny: string[], hostname: string, all: boolean) =>
  new Promise<{ err: Error | null; address: unknown }>((resolve) => guardedLookup(deny)(hostname, { all }, (err, address) => resolve({ err, address })));

describe('the default ranges', () => {
  it('deny link-local and the metadata addresses, in any spelling, and nothing else', () => {
    for (const address of ['169.254.169.254', '169.254.0.1', '::ffff:169.254.169.254', 'fe80::1', '[fe80::1]', 'fd00:ec2::254', '100.100.100.200']) {
      expect(isDenied(address, DEFAULT_ENDPOINT_DENY), address).toBe(true);
    }
    for (const address of ['127.0.0.1', '10.0.0.1', '100.100.100.201', 'fd00:ec2::253', '::1']) {
      expect(isDenied(address, DEFAULT_ENDPOINT_DENY), address).toBe(false);
    }
  });

  it('refuse a literal endpoint at once with endpoint_denied naming the setting', () => {
    expect(() => assertLiteralAllowed('169.254.169.254', DEFAULT_ENDPOINT_DENY)).toThrow(/SLUICE_ENDPOINT_DENY/);
    expect(() => assertLiteralAllowed('[fd00:ec2::254]', DEFAULT_ENDPOINT_DENY)).toThrow(/SLUICE_ENDPOINT_DENY/);
    expect(() => assertLiteralAllowed('s3.example.com', DEFAULT_ENDPOINT_DENY)).not.toThrow();
  });
});

describe('names', () => {
  it('a name resolving into a denied range is refused; the lookup then hands back no address', async () => {
    await expect(assertHostAllowed('localhost', ['127.0.0.0/8', '::1'])).rejects.toMatchObject({ code: 'endpoint_denied', status: 400 });
    await expect(assertHostAllowed('localhost', DEFAULT_ENDPOINT_DENY)).resolves.toBeUndefined();
    for (const all of [false, true]) {
      const refused = await lookupWith(['127.0.0.0/8', '::1'], 'localhost', all);
      expect(deniedIn(refused.err)?.code).toBe('endpoint_denied');
      expect(refused.address).toBe('');
    }
  });

  it('an allowed name resolves as usual, one address or all of them', async () => {
    const one = await lookupWith(DEFAULT_ENDPOINT_DENY, 'localhost', false);
    expect(one.err).toBeNull();
    expect(['127.0.0.1', '::1']).toContain(one.address);
    const every = await lookupWith(DEFAULT_ENDPOINT_DENY, 'localhost', true);
    expect(Array.isArray(every.address) && every.address.length).toBeGreaterThan(0);
  });
});
