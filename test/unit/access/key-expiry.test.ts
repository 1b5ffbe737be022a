import { describe, expect, it } from 'vitest';
import { periodKey } from '../../../origin/access/periods.ts';
import { expiryDate } from '../../../origin/services/keys/fields.ts';
import { isExpired, rotationPending } from '../../../origin/services/keys/view.ts';

describe('expiryDate', () => {
  it('keeps a calendar date', () => {
    expect(expiryDate('2030-02-28')).toBe('2030-02-28');
    expect(expiryDate(' 2028-02-29 ')).toBe('2028-02-29');
  });

  it('refuses dates that do not exist and other text', () => {
    for (const text of ['2030-02-29', '2030-13-01', '2030-00-10', '2030-1-1', '30-01-01', 'tomorrow', '', '2030-01-01T25:00:00Z', '2030-01-01T10:61Z']) {
      expect(expiryDate(text), text).toBeNull();
    }
  });

  it('takes the date of a timestamp without an offset as server time', () => {
    expect(expiryDate('2030-05-06T23:59:59')).toBe('2030-05-06');
    expect(expiryDate('2030-05-06 00:00')).toBe('2030-05-06');
  });

  it('takes the server-zone date of a timestamp with an offset', () => {
    for (const text of ['2030-05-06T23:30:00Z', '2030-05-06T00:30:00+02:00', '2030-05-06T12:00:00.123-0700']) {
      const instant = Date.parse(text.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
      expect(expiryDate(text), text).toBe(periodKey('day', instant));
    }
  });
});

describe('isExpired', () => {
  const now = Date.now();
  const today = periodKey('day', now);
  it('is valid through the whole day named, expired after it', () => {
    expect(isExpired(null, now)).toBe(false);
    expect(isExpired(today, now)).toBe(false);
    expect(isExpired('2999-12-31', now)).toBe(false);
    expect(isExpired('2000-01-01', now)).toBe(true);
    expect(isExpired(periodKey('day', now - 86_400_000 * 2), now)).toBe(true);
  });
});

describe('rotationPending', () => {
  it('holds while a previous secret is inside its grace', () => {
    const now = Date.now();
    expect(rotationPending({ previousSecretHash: 'x', previousExpiresAt: new Date(now + 1000) }, now)).toBe(true);
    expect(rotationPending({ previousSecretHash: 'x', previousExpiresAt: new Date(now - 1000) }, now)).toBe(false);
    expect(rotationPending({ previousSecretHash: null, previousExpiresAt: null }, now)).toBe(false);
  });
});
