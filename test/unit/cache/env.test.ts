import { describe, expect, test } from 'vitest';
import { parseEnv } from '../../../origin/env.ts';

describe('cache settings', () => {
  test('defaults: memory cache of 64 MiB, Redis prefix sluice:', () => {
    const env = parseEnv({});
    expect(env.SLUICE_REDIS_URL).toBeUndefined();
    expect(env.SLUICE_CACHE_MAX_BYTES).toBe(64 * 1024 * 1024);
    expect(env.SLUICE_REDIS_PREFIX).toBe('sluice:');
  });

  test('accepts redis:// and rediss:// URLs; an empty value means unset', () => {
    expect(parseEnv({ SLUICE_REDIS_URL: 'redis://127.0.0.1:6379/3' }).SLUICE_REDIS_URL).toBe('redis://127.0.0.1:6379/3');
    expect(parseEnv({ SLUICE_REDIS_URL: 'rediss://:pw@cache.example:6380' }).SLUICE_REDIS_URL).toBe('rediss://:pw@cache.example:6380');
    expect(parseEnv({ SLUICE_REDIS_URL: '' }).SLUICE_REDIS_URL).toBeUndefined();
  });

  test.each(['127.0.0.1:6379', 'http://127.0.0.1:6379', 'redis:///0', 'redis:// spaces', 'not a url'])('refuses SLUICE_REDIS_URL=%s, naming the variable but never echoing it', (url) => {
    expect(() => parseEnv({ SLUICE_REDIS_URL: url })).toThrow(/SLUICE_REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/);
    try {
      parseEnv({ SLUICE_REDIS_URL: url });
    } catch (err) {
      expect((err as Error).message).not.toContain(url);
    }
  });

  test('refuses a malformed byte budget or prefix', () => {
    expect(() => parseEnv({ SLUICE_CACHE_MAX_BYTES: '64MB' })).toThrow(/SLUICE_CACHE_MAX_BYTES/);
    expect(() => parseEnv({ SLUICE_REDIS_PREFIX: 'has space' })).toThrow(/SLUICE_REDIS_PREFIX/);
    expect(parseEnv({ SLUICE_CACHE_MAX_BYTES: '0' }).SLUICE_CACHE_MAX_BYTES).toBe(0);
  });
});
