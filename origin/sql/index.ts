/**
 * Dialect-aware analysis of SQL text: what a statement does (`inspect`), and
 * the text, values and row window to run it with (`plan`). Pure functions.
 */
export { inspect, type StatementInfo } from './inspect.ts';
export { ownLimit, plan, type Paging, type PlannedStatement } from './plan.ts';
export { substituteLegacy } from './legacy.ts';
