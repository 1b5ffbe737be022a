import type { z } from 'zod';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../../shared/json-depth.ts';
import { hasNul, nulPaths } from '../../../shared/nul.ts';
import { givingWay } from './transaction.ts';

/**
 * The whole-file checks of a configuration file (nesting depth, NUL
 * characters, the schema) run one entry at a time, giving way to other
 * requests between: run over a file of 10,000 queries at once they held the
 * event loop for 100–200 ms. Each section's entries (a list's items, a
 * `descriptions` connection) are checked alone; the rest of the file, its
 * sections emptied, in one go. What they find is what the same check over
 * the whole file finds, in the same order.
 */

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A top-level value whose entries are checked one at a time: a list, or an object of entries (`descriptions`). */
const entriesOf = (value: unknown): Array<[string, unknown]> | null => (Array.isArray(value) || isPlainObject(value) ? Object.entries(value) : null);

/** Whether the file nests deeper than MAX_JSON_DEPTH (`nestsDeeperThan`), an entry at a time. */
export async function nestsTooDeep(raw: unknown): Promise<boolean> {
  if (!isPlainObject(raw)) return nestsDeeperThan(raw);
  const giveWay = givingWay();
  for (const value of Object.values(raw)) {
    const entries = entriesOf(value);
    // The file is one level, the section another: an entry may nest two fewer.
    if (entries === null) continue;
    for (const [, entry] of entries) {
      if (nestsDeeperThan(entry, MAX_JSON_DEPTH - 2)) return true;
      await giveWay();
    }
  }
  return false;
}

/** The paths of the strings and keys holding a NUL (`nulPaths`), an entry at a time, in document order. */
export async function nulPathsOf(raw: unknown): Promise<string[]> {
  if (!isPlainObject(raw)) return nulPaths(raw);
  const giveWay = givingWay();
  const found: string[] = [];
  for (const [section, value] of Object.entries(raw)) {
    const entries = entriesOf(value);
    if (hasNul(section) || entries === null) {
      found.push(...nulPaths({ [section]: value }));
      continue;
    }
    for (const [key, entry] of entries) {
      found.push(...nulPaths({ [key]: entry }).map((path) => `${section}.${path}`));
      await giveWay();
    }
  }
  return found;
}

/** The sections read an entry at a time: the schema of one entry of each. */
export type SlicedSections = Record<string, { entry: z.ZodType }>;

/**
 * What one parse of the whole file finds: `head` (which takes any entries
 * in `sections`) parses the file, then each entry of a section it passed is
 * parsed alone with its section's `entry` schema. Issues are ordered as one
 * parse orders them: by field as the head declares them, a section's
 * entries in file order, unknown fields last.
 */
export async function parseInSlices<T>(
  raw: unknown,
  head: z.ZodObject,
  sections: SlicedSections,
): Promise<{ success: true; data: T } | { success: false; issues: z.core.$ZodIssue[]; partial: T }> {
  const shell = head.safeParse(raw);
  const issues: z.core.$ZodIssue[] = shell.success ? [] : [...shell.error.issues];
  const data: Record<string, unknown> = shell.success ? { ...(shell.data as Record<string, unknown>) } : {};
  const giveWay = givingWay();
  for (const [section, { entry: schema }] of Object.entries(sections)) {
    const value = (raw as Record<string, unknown>)[section];
    if (issues.some((issue) => issue.path[0] === section) || value === undefined) continue;
    const entries = entriesOf(value)!;
    const parsed: Array<[string, unknown]> = [];
    for (const [key, entry] of entries) {
      const result = schema.safeParse(entry);
      const at = Array.isArray(value) ? Number(key) : key;
      if (result.success) parsed.push([key, result.data]);
      else issues.push(...result.error.issues.map((issue) => ({ ...issue, path: [section, at, ...issue.path] })));
      await giveWay();
    }
    data[section] = Array.isArray(value) ? parsed.map(([, entry]) => entry) : Object.fromEntries(parsed);
  }
  if (issues.length > 0) {
    const fields = Object.keys(head.shape);
    const rank = (issue: z.core.$ZodIssue) => (issue.path.length === 0 ? fields.length : fields.indexOf(String(issue.path[0])));
    const sorted = issues.map((issue, i) => ({ issue, i })).sort((a, b) => rank(a.issue) - rank(b.issue) || a.i - b.i).map(({ issue }) => issue);
    // `partial`: the entries whose own shape is right, so that what the store says of them is found in the same pass.
    return { success: false, issues: sorted, partial: data as T };
  }
  return { success: true, data: data as T };
}
