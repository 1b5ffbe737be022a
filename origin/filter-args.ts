import { SluiceError, badRequest } from './errors.ts';

/**
 * A listing's filters read from query-string arguments (the audit log, run
 * history). Whatever would silently widen the list is refused: an unknown
 * name at once (`unknown_field`), then a repeated argument or a malformed
 * value, each noted, all named in one 400 by `done()`.
 */
export class FilterArgs<Name extends string> {
  private readonly errors: Record<string, string> = {};

  constructor(
    private readonly args: Record<string, string[]>,
    allowed: readonly Name[],
  ) {
    const unknown = Object.keys(args).filter((name) => !(allowed as readonly string[]).includes(name));
    if (unknown.length > 0) {
      throw new SluiceError('unknown_field', `Unknown filter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}; use ${allowed.join(', ')}`, { fields: unknown });
    }
  }

  /** The argument's value; an empty one is no filter. */
  one(name: Name): string | undefined {
    const values = this.args[name];
    if (!values) return undefined;
    if (values.length > 1) this.refuse(name, 'was given more than once');
    return values[0] === '' ? undefined : values[0];
  }

  /** Notes a value refused, `name` and `problem` making the sentence. */
  refuse(name: Name, problem: string): void {
    this.errors[name] = problem;
  }

  /** `name` as a whole number from 1 to `max`. */
  limit(name: Name, max: number): number | undefined {
    const text = this.one(name);
    if (text === undefined) return undefined;
    if (/^\d{1,9}$/.test(text) && Number(text) >= 1 && Number(text) <= max) return Number(text);
    this.refuse(name, `must be a whole number from 1 to ${max}`);
    return undefined;
  }

  /** `name` as a cursor of `codec`'s: what a page's `next_cursor` gave. */
  cursor(name: Name, codec: CursorCodec): number | undefined {
    const text = this.one(name);
    if (text === undefined) return undefined;
    const position = codec.decode(text);
    if (position !== null) return position;
    this.refuse(name, 'is not a cursor this server gave (use next_cursor as it came)');
    return undefined;
  }

  /** Throws the 400 naming every refused value, if any. */
  done(): void {
    const fields = Object.keys(this.errors);
    if (fields.length > 0) throw badRequest(`Invalid filters: ${fields.map((field) => `${field} ${this.errors[field]}`).join('; ')}`, { errors: this.errors });
  }
}

/** A page's `next_cursor`: opaque to clients, the position (an id) of the last item they were given, under a name of its own. */
export interface CursorCodec {
  encode(position: number): string;
  decode(cursor: string): number | null;
}

export function cursorCodec(kind: string): CursorCodec {
  const pattern = new RegExp(`^${kind}:(\\d{1,15})$`);
  return {
    encode: (position) => Buffer.from(`${kind}:${position}`).toString('base64url'),
    decode(cursor) {
      if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
      const match = pattern.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
      return match ? Number(match[1]) : null;
    },
  };
}
