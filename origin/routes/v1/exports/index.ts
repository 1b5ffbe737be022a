import { defineResource } from '../contract.ts';
import { create } from './create.ts';
import { remove } from './delete.ts';
import { read } from './get.ts';
import { list } from './list.ts';
import { listRuns, run } from './runs.ts';
import { update } from './update.ts';

/** `/api/v1/exports`: reading for every administrator, changes need `exports.write`, running `exports.run`. */
export const exportsApi = defineResource({
  base: '/api/v1/exports',
  area: 'exports',
  tag: { name: 'Management: exports', description: "A saved query's full result delivered to a destination, incrementally, one run at a time" },
  lock: 'exports',
  routes: [list, create, read, update, remove, run, listRuns],
});
