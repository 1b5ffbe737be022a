/**
 * A result's column names as every answer shows them: made unique, since
 * every format keys cells by name (and the push-down renders the same names).
 */

/**
 * Keeps the first occurrence of each name; later duplicates become `name_2`,
 * `name_3`… skipping any suffix that is already a column name anywhere in the
 * list (so `['id', 'id', 'id_2']` gives `id, id_3, id_2`). Case-sensitive.
 */
export function uniqueColumnNames(names: string[]): string[] {
  const taken = new Set(names);
  const used = new Set<string>();
  return names.map((name) => {
    if (!used.has(name)) {
      used.add(name);
      return name;
    }
    let k = 2;
    while (taken.has(`${name}_${k}`) || used.has(`${name}_${k}`)) k++;
    const unique = `${name}_${k}`;
    used.add(unique);
    taken.add(unique);
    return unique;
  });
}
