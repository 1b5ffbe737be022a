/**
 * Saved-query parameter rules (spec: "Parameter rules"): checking definitions
 * on save, showing them in the v1 API, resolving request values, and example
 * values for generated docs. Runs on Node and Workers alike (Web APIs only).
 */
export {
  API_TYPE_NAMES,
  DEFAULT_VALUES_TTL,
  RESERVED_NAMES,
  listsValues,
  type ParameterRule,
  type Problems,
  type Rules,
  type TypeName,
} from './types.ts';
export { describeDefinitions, parseDefinitions } from './definitions.ts';
export { resolveValues, type ResolveOptions } from './resolve.ts';
export { exampleValue } from './example.ts';
export { requestValues, type RequestValuesInput } from './request-values.ts';
