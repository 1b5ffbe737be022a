import { describe, expect, it } from 'vitest';
import { createApp } from '../../origin/app.ts';
import type { AppDeps } from '../../origin/deps.ts';
import { MANAGEMENT_ENDPOINTS } from '../../origin/routes/v1/index.ts';
import { STATIC_ENDPOINTS } from '../../origin/services/discovery/static-paths.ts';

/**
 * The fixed part of `/openapi.json` against the routes the app registers,
 * both ways: nothing documented that does not exist, nothing registered that
 * is not documented (saved queries are documented per query). The
 * Management API's part is generated from its route contracts, so for it
 * this says every route the app answers under `/api/v1` has a contract.
 */

const routes = () =>
  createApp({} as AppDeps)
    .routes.filter((route) => route.method !== 'ALL')
    .map((route) => `${route.method} ${route.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`);

const documented = [...STATIC_ENDPOINTS, ...MANAGEMENT_ENDPOINTS].map((e) => `${e.method.toUpperCase()} ${e.path}`);

describe('the documented endpoints', () => {
  it('all exist', () => {
    expect(documented.filter((entry) => !routes().includes(entry))).toEqual([]);
  });

  // The web console is a page and its files served beside the API
  // (docs/reference/console.md), not an endpoint a client calls.
  const isConsole = (entry: string) => entry === 'GET /console' || entry.startsWith('GET /console/');

  it('cover every route but /q/{name} (documented per query) and the console', () => {
    const missing = routes().filter((entry) => !documented.includes(entry) && !entry.endsWith(' /q/{name}') && !isConsole(entry));
    expect(missing).toEqual([]);
  });

  it('have unique operation ids', () => {
    const ids = [...STATIC_ENDPOINTS, ...MANAGEMENT_ENDPOINTS].map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
