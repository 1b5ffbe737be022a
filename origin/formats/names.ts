/** Column names turned into XML element names. */

// XML 1.0 (5th edition) NameStartChar and NameChar, without ':' (namespaces).
const NAME_START =
  'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D' +
  '\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const NAME_CHAR = `${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040`;
const NOT_NAME_CHAR = new RegExp(`[^${NAME_CHAR}]`, 'gu');
const STARTS_WELL = new RegExp(`^[${NAME_START}]`, 'u');

/**
 * A well-formed XML element name for any column name: characters that may not
 * appear in a name become `_`; a name that cannot start with its first
 * character (digit, `-`, `.`), or starts with the reserved `xml` (any case),
 * gets a leading `_`; an empty name becomes `column`.
 */
export function xmlElementName(name: string): string {
  if (name === '') return 'column';
  let out = name.replace(NOT_NAME_CHAR, '_');
  if (!STARTS_WELL.test(out) || /^xml/i.test(out)) out = `_${out}`;
  return out;
}

/**
 * Element names for a list of (already unique) column names: a name that is
 * valid as it is keeps it; a sanitised one that would collide gets `_2`, `_3`…
 */
export function xmlElementNames(names: string[]): string[] {
  const sanitised = names.map(xmlElementName);
  const taken = new Set(sanitised.filter((element, i) => element === names[i]));
  return sanitised.map((element, i) => {
    if (element === names[i]) return element;
    let unique = element;
    for (let k = 2; taken.has(unique); k++) unique = `${element}_${k}`;
    taken.add(unique);
    return unique;
  });
}
