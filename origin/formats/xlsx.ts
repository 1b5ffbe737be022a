/**
 * xlsx through exceljs's streaming WorkbookWriter (no shared strings; styles
 * only for the bold header and date formats), piped into a PassThrough that
 * `serialize` reads. Rows are added while the client keeps up: after each
 * batch the producer waits while the output holds more than HIGH_WATER bytes
 * unread (exceljs itself ignores backpressure).
 *
 * Cells:
 * - numbers are numbers; NaN and infinities are text. bigint and Decimal are
 *   numbers only with at most 15 significant digits (what a double holds and
 *   Excel shows exactly); longer ones are text — exactness over type.
 * - booleans are booleans; NULL is an empty cell.
 * - SqlDate and LocalTimestamp are Excel dates (`yyyy-mm-dd`,
 *   `yyyy-mm-dd hh:mm:ss[.000]`) from 1900-03-01 to 9999-12-31 when exact to
 *   the millisecond; otherwise their ISO text. Instant (Excel has no zones: a
 *   serial would silently drop the offset) and SqlTime are ISO text.
 * - binary is base64 text, JsonValue JSON text. Text longer than Excel's
 *   32,767-character cell limit is cut to it; characters XML forbids become U+FFFD.
 * - Past 1,048,575 data rows the rows continue on a new sheet (Sheet2…) with
 *   the header repeated. Columns past Excel's 16,384 are not written.
 */
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { PassThrough, type Writable } from 'node:stream';
import type ExcelJS from 'exceljs';
import { Decimal, LocalTimestamp, SqlDate, type Value } from '../values.ts';
import type { Serializer } from './index.ts';
import { uniqueColumnNames } from '../drivers/column-names.ts';
import { valueText, xmlLegal } from './text.ts';

const BACKLOG_LIMIT = 1024 * 1024;
const MAX_DATA_ROWS = 1_048_575;
const MAX_COLUMNS = 16_384;
const MAX_TEXT = 32_767;
const MIN_DATE_MS = Date.UTC(1900, 2, 1);
const MAX_DATE_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

type Cell = null | boolean | number | string | Date;

function text(s: string): string {
  const legal = xmlLegal(s);
  return legal.length > MAX_TEXT ? legal.slice(0, MAX_TEXT) : legal;
}

function significantDigits(digits: string): number {
  return digits.replace(/^0+/, '').replace(/0+$/, '').length;
}

/** A decimal's number when it has ≤ 15 significant digits and fits a double, else null. */
function exactNumber(decimalText: string): number | null {
  const m = /^[+-]?(\d*)(?:\.(\d*))?(?:[eE][+-]?\d+)?$/.exec(decimalText);
  if (!m || !(m[1] || m[2]) || significantDigits((m[1] ?? '') + (m[2] ?? '')) > 15) return null;
  const n = Number(decimalText);
  if (!Number.isFinite(n) || (n === 0 && /[1-9]/.test(m[1] + (m[2] ?? '')))) return null;
  return n;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?)?$/;

/** `[Date, numFmt]` when the text is an exactly representable Excel date, else null. */
function excelDate(iso: string): [Date, string] | null {
  const m = DATE_TIME.exec(iso);
  if (!m || +m[1] < 1900) return null; // also keeps Date.UTC off its 0–99 -> 19xx mapping
  const fraction = (m[7] ?? '').padEnd(3, '0');
  if (/[1-9]/.test(fraction.slice(3))) return null;
  const ms = Date.UTC(+m[1], +m[2] - 1, +m[3], +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0), +fraction.slice(0, 3));
  if (!(ms >= MIN_DATE_MS && ms <= MAX_DATE_MS)) return null;
  const format = m[4] === undefined ? 'yyyy-mm-dd' : +fraction.slice(0, 3) ? 'yyyy-mm-dd hh:mm:ss.000' : 'yyyy-mm-dd hh:mm:ss';
  return [new Date(ms), format];
}

/** One cell, and its number format when it is a date. */
function cell(v: Value): [Cell, string | undefined] {
  switch (typeof v) {
    case 'number':
      return [Number.isFinite(v) ? v : String(v), undefined];
    case 'bigint':
      return [v > -(10n ** 15n) && v < 10n ** 15n ? Number(v) : v.toString(), undefined];
    case 'boolean':
      return [v, undefined];
    case 'string':
      return [text(v), undefined];
  }
  if (v === null || v === undefined) return [null, undefined];
  if (v instanceof Decimal) return [exactNumber(v.text) ?? v.text, undefined];
  if (v instanceof SqlDate || v instanceof LocalTimestamp) {
    const date = excelDate(v.text);
    if (date) return date;
  }
  return [text(valueText(v)), undefined];
}

/** The stream archiver reads the sheet's XML from (exceljs internals; undefined if they change). */
function entryStream(sheet: ExcelJS.Worksheet): Writable | undefined {
  const pipes = (sheet as unknown as { stream?: { pipes?: unknown[] } }).stream?.pipes;
  const first = Array.isArray(pipes) ? pipes[0] : undefined;
  return first && typeof (first as Writable).once === 'function' ? (first as Writable) : undefined;
}

/** Bytes written to the entry stream and not yet taken by the zip (readable-stream 2 has no writableLength). */
function backlog(entry: Writable): number {
  const state = (entry as unknown as { _writableState?: { length?: number } })._writableState;
  return typeof entry.writableLength === 'number' ? entry.writableLength : state?.length ?? 0;
}

/**
 * Resolves when the zip may have taken some of the backlog: at its next 'data'
 * while the entry flows into the zip, else after a short pause. (A 'data'
 * listener on an entry archiver has not piped yet would start it flowing into
 * nothing, so it is only added while it flows.)
 */
function taken(entry: Writable, signal: AbortSignal): Promise<unknown> {
  const flowing = (entry as unknown as { _readableState?: { flowing?: boolean | null } })._readableState?.flowing;
  return flowing === true ? once(entry, 'data', { signal }) : delay(5, undefined, { signal });
}

export interface XlsxOptions {
  /** Data rows per sheet before the next sheet starts (default and maximum: Excel's 1,048,575). */
  maxRowsPerSheet?: number;
}

export function xlsxSerializer(options: XlsxOptions = {}): Serializer {
  const maxRows = Math.min(options.maxRowsPerSheet ?? MAX_DATA_ROWS, MAX_DATA_ROWS);
  return {
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    extension: 'xlsx',
    async *serialize(columns, rows) {
      const names = uniqueColumnNames(columns.map((c) => c.name)).slice(0, MAX_COLUMNS).map(text);
      const n = names.length;
      const out = new PassThrough({ highWaterMark: 256 * 1024 });
      // Loaded on first use: a server that never writes xlsx never holds exceljs in memory.
      const { default: Excel } = await import('exceljs');
      const workbook = new Excel.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: true });
      const cancel = new AbortController();
      // Archiver emits errors on its own stream; without a listener they would crash the process.
      (workbook as unknown as { zip?: PassThrough }).zip?.on('error', (error) => out.destroy(error));

      const addSheet = (index: number) => {
        const sheet = workbook.addWorksheet(`Sheet${index}`, { views: [{ state: 'frozen', ySplit: 1 }] });
        const header = sheet.addRow(names);
        header.font = { bold: true };
        header.commit();
        return sheet;
      };

      const produce = async () => {
        let sheetIndex = 1;
        let sheet = addSheet(sheetIndex);
        let rowsInSheet = 0;
        const values: Cell[] = new Array(n);
        const formats: (string | undefined)[] = new Array(n);
        for await (const batch of rows) {
          for (const row of batch) {
            if (rowsInSheet === maxRows) {
              sheet.commit();
              sheet = addSheet(++sheetIndex);
              rowsInSheet = 0;
            }
            let dated = false;
            for (let i = 0; i < n; i++) {
              [values[i], formats[i]] = cell(row[i] ?? null);
              dated ||= formats[i] !== undefined;
            }
            const added = sheet.addRow(values);
            if (dated) for (let i = 0; i < n; i++) if (formats[i]) added.getCell(i + 1).numFmt = formats[i]!;
            added.commit();
            rowsInSheet++;
          }
          await new Promise((resolve) => setImmediate(resolve));
          const entry = entryStream(sheet);
          while (entry && backlog(entry) > BACKLOG_LIMIT) await taken(entry, cancel.signal);
          if (cancel.signal.aborted) return;
        }
        await workbook.commit();
      };
      const producing = produce().catch((error: unknown) => {
        if (!cancel.signal.aborted) out.destroy(error instanceof Error ? error : new Error(String(error)));
      });

      try {
        for await (const chunk of out) yield chunk as Uint8Array;
        await producing;
      } finally {
        cancel.abort();
        out.destroy();
      }
    },
  };
}

export const xlsx = xlsxSerializer();
