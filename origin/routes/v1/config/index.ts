import { defineResource } from '../contract.ts';
import { apply } from './apply.ts';
import { diff } from './diff.ts';
import { managed } from './managed.ts';
import { snapshot } from './snapshot.ts';

/**
 * `/api/v1/config`: diffing and reading what is managed need `config.read`;
 * applying, and the snapshot (GET /export, which shows keys' secret hashes), `config.apply`
 * (owners).
 */
export const configApi = defineResource({
  base: '/api/v1/config',
  area: 'config',
  tag: { name: 'Management: config', description: 'Configuration as code: diff, apply and export a configuration file; managed objects' },
  routes: [diff, apply, managed, snapshot],
});
