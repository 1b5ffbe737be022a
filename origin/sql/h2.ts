import { H2_FUNCTIONS, H2_NOT_CALLS } from './h2-functions.ts';
import { caseless, readName } from './identifiers.ts';
import type { SideEffectCall } from './side-effects.ts';
import { closingParen, isPunct } from './statements.ts';
import type { Token } from './tokenizer.ts';

/**
 * H2 ignores JDBC's read-only flag: whatever a statement can call, it runs.
 * So the guard allows rather than denies there: a call is a read only when
 * it names, unqualified, a built-in function of H2_FUNCTIONS (h2-functions.ts);
 * anything else (a function of CREATE ALIAS, a schema-qualified name, a
 * function H2 adds later) is refused, with the session state H2 keeps
 * between callers: `@variables`, sequences (`NEXT VALUE FOR`, `NEXTVAL`,
 * `CURRVAL`) and the views of other sessions.
 */
export function h2Calls(tokens: Token[]): SideEffectCall[] {
  const calls: SideEffectCall[] = [];
  const add = (op: string, why: string) => calls.push({ op, why });
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.kind === 'operator' && token.text === '@') {
      add('SET', 'H2 session variables (@name) keep their value for the next caller of the session');
      continue;
    }
    if (token.word === 'NEXTVAL' || token.word === 'CURRVAL' || (token.word === 'NEXT' && tokens[i + 1]?.word === 'VALUE' && tokens[i + 2]?.word === 'FOR')) {
      add('NEXTVAL()', 'a sequence value is a write (NEXT VALUE FOR, NEXTVAL) or session state (CURRVAL)');
      continue;
    }
    const read = readName(token, 'h2');
    if (read === null || !('name' in read)) continue;
    const name = caseless(read.name);
    if (isPunct(tokens[i - 1], '.') && tokens[i - 2] && SESSION_VIEWS.has(name) && caseless(nameText(tokens[i - 2])) === 'INFORMATION_SCHEMA') {
      add(`INFORMATION_SCHEMA.${name}`, `INFORMATION_SCHEMA.${name} shows what other sessions run`);
      continue;
    }
    if (!isPunct(tokens[i + 1], '(') || tokens[i - 1]?.word === 'AS') continue;
    if (token.kind === 'word' && H2_NOT_CALLS.has(token.word)) continue;
    if (isColumnList(tokens, i)) continue;
    if (isPunct(tokens[i - 1], '.')) {
      add(`${name}()`, `${name}() is qualified by a schema: no H2 built-in function is, so it is a function created with CREATE ALIAS`);
    } else if (!/^[A-Za-z0-9_]+$/.test(read.name) || !H2_FUNCTIONS.has(name)) {
      add(`${name}()`, `${name}() is not among the H2 functions a read may call (docs/reference/read-only-guard.md)`);
    }
  }
  return calls;
}

/** Why the statement cannot be read on H2, or null: a name in brackets (MSSQLServer mode) right before `(`. */
export function h2Unreadable(tokens: Token[]): string | null {
  for (let i = 1; i < tokens.length; i++) {
    if (isPunct(tokens[i], '(') && isPunct(tokens[i - 1], ']')) return 'a call after `]` (a name in brackets) cannot be read';
  }
  return null;
}

const SESSION_VIEWS = new Set(['SESSIONS', 'SESSION_STATE', 'LOCKS']);

const nameText = (token: Token) => {
  const read = readName(token, 'h2');
  return read && 'name' in read ? read.name : '';
};

/** `WITH name (a, b) AS (` or `, name (a, b) AS (`: a CTE's column list, not a call. */
function isColumnList(tokens: Token[], i: number): boolean {
  const before = tokens[i - 1];
  if (!before || !(before.word === 'WITH' || before.word === 'RECURSIVE' || isPunct(before, ','))) return false;
  const close = closingParen(tokens, i + 1);
  return tokens[close + 1]?.word === 'AS' && (isPunct(tokens[close + 2], '(') || ['NOT', 'MATERIALIZED'].includes(tokens[close + 2]?.word));
}
