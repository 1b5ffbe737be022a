import { defineResource } from '../contract.ts';
import { read } from './get.ts';

/** `/api/v1/settings`: the server's environment settings, read-only (`settings.read`); `/settings/rekey` is a resource of its own. */
export const settingsApi = defineResource({
  base: '/api/v1/settings',
  area: 'settings',
  tag: { name: 'Management: settings', description: 'The environment settings the server runs with' },
  routes: [read],
});
