import { z } from 'zod';

/** The longest description or notes text: documentation, not data. */
export const MAX_DESCRIPTION = 4000;

/**
 * One description: of a table (`column` null or left out) or of one of its
 * columns. Tables are named as the schema listing names them (`schema.table`
 * outside the default schema). An empty description removes the item.
 */
export const descriptionItem = z.strictObject({
  table: z.string().trim().min(1, 'table must name a table').max(500),
  column: z.string().trim().min(1, 'column must name a column, or be null for the table itself').max(500).nullable().optional(),
  description: z.string().max(MAX_DESCRIPTION, `description must be at most ${MAX_DESCRIPTION} characters`),
});
export type DescriptionItemInput = z.infer<typeof descriptionItem>;

/** PATCH /api/v1/connections/{name}/descriptions: only the items listed change; `notes` null or '' removes them. */
export const patchFields = z.strictObject({
  items: z.array(descriptionItem).max(10_000).optional(),
  notes: z.string().max(MAX_DESCRIPTION, `notes must be at most ${MAX_DESCRIPTION} characters`).nullable().optional(),
});
export type PatchFields = z.infer<typeof patchFields>;

/** An item as the API shows it. */
export interface DescriptionItem {
  table: string;
  column: string | null;
  description: string;
}

/** GET /api/v1/connections/{name}/descriptions */
export interface Descriptions {
  connection: string;
  notes: string | null;
  items: DescriptionItem[];
}
