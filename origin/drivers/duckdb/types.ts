import {
  DuckDBBlobValue,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBMapValue,
  DuckDBTimestampMillisecondsValue,
  DuckDBTimestampNanosecondsValue,
  DuckDBTimestampSecondsValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBTimeNSValue,
  DuckDBTimeTZValue,
  DuckDBTimeValue,
  DuckDBTypeId,
  arrayFromArrayValue,
  arrayFromListValue,
  createDuckDBValueConverter,
  fromVariantValue,
  objectFromStructValue,
  objectFromUnionValue,
  type DuckDBType,
  type DuckDBValue,
  type DuckDBValueConverter,
} from '@duckdb/node-api';
import { Decimal, Instant, JsonValue, LocalTimestamp, SqlDate, SqlTime, type Value, type ValueKind } from '../../values.ts';
import { integerFromBigInt, jsonSafe, plainBytes } from '../json-values.ts';
import { dateFromDays, localFromMicros, offsetText, timeFromMicros } from '../temporal.ts';

/**
 * DuckDB values (as `DuckDBVector.getItem` returns them) to the value model.
 * `convert` is null where the vector's item already is the model's value.
 */
export interface DuckColumnType {
  name: string;
  kind: ValueKind;
  convert: ((item: DuckDBValue) => Value) | null;
}

const finite = <T extends { isFinite: boolean }>(item: T, micros: (item: T) => bigint) =>
  item.isFinite ? new LocalTimestamp(localFromMicros(micros(item))) : String(item);

/** Floor division for the nanosecond kinds, so instants before 1970 stay exact. */
const floorDiv = (a: bigint, b: bigint) => (a >= 0n ? a / b : -((-a + b - 1n) / b));

const SCALARS: Partial<Record<DuckDBTypeId, { kind: ValueKind; convert: ((item: DuckDBValue) => Value) | null }>> = {
  [DuckDBTypeId.BOOLEAN]: { kind: 'boolean', convert: null },
  [DuckDBTypeId.TINYINT]: { kind: 'integer', convert: null },
  [DuckDBTypeId.SMALLINT]: { kind: 'integer', convert: null },
  [DuckDBTypeId.INTEGER]: { kind: 'integer', convert: null },
  [DuckDBTypeId.UTINYINT]: { kind: 'integer', convert: null },
  [DuckDBTypeId.USMALLINT]: { kind: 'integer', convert: null },
  [DuckDBTypeId.UINTEGER]: { kind: 'integer', convert: null },
  [DuckDBTypeId.BIGINT]: { kind: 'integer', convert: (v) => integerFromBigInt(v as bigint) },
  [DuckDBTypeId.UBIGINT]: { kind: 'integer', convert: (v) => integerFromBigInt(v as bigint) },
  [DuckDBTypeId.HUGEINT]: { kind: 'integer', convert: (v) => integerFromBigInt(v as bigint) },
  [DuckDBTypeId.UHUGEINT]: { kind: 'integer', convert: (v) => integerFromBigInt(v as bigint) },
  [DuckDBTypeId.BIGNUM]: { kind: 'integer', convert: (v) => integerFromBigInt(BigInt(String(v))) },
  [DuckDBTypeId.FLOAT]: { kind: 'float', convert: null },
  [DuckDBTypeId.DOUBLE]: { kind: 'float', convert: null },
  [DuckDBTypeId.DECIMAL]: { kind: 'decimal', convert: (v) => new Decimal((v as DuckDBDecimalValue).toString()) },
  [DuckDBTypeId.VARCHAR]: { kind: 'text', convert: null },
  [DuckDBTypeId.ENUM]: { kind: 'text', convert: null },
  [DuckDBTypeId.UUID]: { kind: 'text', convert: (v) => String(v) },
  [DuckDBTypeId.INTERVAL]: { kind: 'text', convert: (v) => String(v) },
  [DuckDBTypeId.BIT]: { kind: 'text', convert: (v) => String(v) },
  [DuckDBTypeId.BLOB]: { kind: 'binary', convert: (v) => plainBytes((v as DuckDBBlobValue).bytes) },
  [DuckDBTypeId.GEOMETRY]: { kind: 'binary', convert: (v) => plainBytes((v as unknown as DuckDBBlobValue).bytes) },
  [DuckDBTypeId.DATE]: {
    kind: 'date',
    convert: (v) => {
      const date = v as DuckDBDateValue;
      // String() of an infinite date prints a far-future calendar date: say what DuckDB says.
      return date.isFinite ? new SqlDate(dateFromDays(date.days)) : date.days > 0 ? 'infinity' : '-infinity';
    },
  },
  [DuckDBTypeId.TIME]: { kind: 'time', convert: (v) => new SqlTime(timeFromMicros((v as DuckDBTimeValue).micros)) },
  [DuckDBTypeId.TIME_NS]: {
    kind: 'time',
    convert: (v) => new SqlTime(timeFromMicros((v as DuckDBTimeNSValue).nanos / 1000n)),
  },
  [DuckDBTypeId.TIME_TZ]: {
    kind: 'time',
    convert: (v) => {
      const time = v as DuckDBTimeTZValue;
      return new SqlTime(`${timeFromMicros(time.micros)}${offsetText(time.offset)}`);
    },
  },
  [DuckDBTypeId.TIMESTAMP]: { kind: 'timestamp', convert: (v) => finite(v as DuckDBTimestampValue, (t) => t.micros) },
  [DuckDBTypeId.TIMESTAMP_S]: {
    kind: 'timestamp',
    convert: (v) => finite(v as DuckDBTimestampSecondsValue, (t) => t.seconds * 1_000_000n),
  },
  [DuckDBTypeId.TIMESTAMP_MS]: {
    kind: 'timestamp',
    convert: (v) => finite(v as DuckDBTimestampMillisecondsValue, (t) => t.millis * 1000n),
  },
  [DuckDBTypeId.TIMESTAMP_NS]: {
    kind: 'timestamp',
    convert: (v) => finite(v as DuckDBTimestampNanosecondsValue, (t) => floorDiv(t.nanos, 1000n)),
  },
  [DuckDBTypeId.TIMESTAMP_TZ]: {
    kind: 'timestamptz',
    convert: (v) => {
      const ts = v as DuckDBTimestampTZValue;
      return ts.isFinite ? new Instant(ts.micros) : String(ts);
    },
  },
  [DuckDBTypeId.SQLNULL]: { kind: 'unknown', convert: () => null },
};

const NESTED = new Set([
  DuckDBTypeId.LIST,
  DuckDBTypeId.STRUCT,
  DuckDBTypeId.MAP,
  DuckDBTypeId.ARRAY,
  DuckDBTypeId.UNION,
  DuckDBTypeId.VARIANT,
]);

/** A MAP as a JSON object when its keys are plain, else as `[{key, value}]`. */
function mapToJson(value: DuckDBValue, type: DuckDBType, converter: DuckDBValueConverter<unknown>): unknown {
  const map = value as DuckDBMapValue;
  const mapType = type as DuckDBType & { keyType: DuckDBType; valueType: DuckDBType };
  const pairs = map.entries.map((e) => ({
    key: converter(e.key, mapType.keyType, converter),
    value: converter(e.value, mapType.valueType, converter),
  }));
  if (!pairs.every((p) => typeof p.key === 'string' || typeof p.key === 'number')) return pairs;
  return Object.fromEntries(pairs.map((p) => [String(p.key), p.value]));
}

/** Elements inside nested values: the scalar conversion, then plain JSON (see json-values.ts). */
const jsonConverter: DuckDBValueConverter<unknown> = createDuckDBValueConverter<unknown>({
  ...(Object.fromEntries(
    Object.values(DuckDBTypeId)
      .filter((id): id is DuckDBTypeId => typeof id === 'number')
      .map((id) => [id, (v: DuckDBValue) => jsonSafe(SCALARS[id]?.convert?.(v) ?? (v as Value))]),
  ) as unknown as Record<DuckDBTypeId, DuckDBValueConverter<unknown>>),
  [DuckDBTypeId.LIST]: arrayFromListValue,
  [DuckDBTypeId.ARRAY]: arrayFromArrayValue,
  [DuckDBTypeId.STRUCT]: objectFromStructValue,
  [DuckDBTypeId.MAP]: mapToJson,
  [DuckDBTypeId.UNION]: objectFromUnionValue,
  [DuckDBTypeId.VARIANT]: fromVariantValue,
  [DuckDBTypeId.VARCHAR]: (v, type) => (type.alias === 'JSON' ? JSON.parse(v as string) : v),
});

export function duckType(type: DuckDBType): DuckColumnType {
  const name = type.alias ?? type.toString();
  if (type.typeId === DuckDBTypeId.VARCHAR && type.alias === 'JSON') {
    return { name, kind: 'json', convert: (v) => new JsonValue(JSON.parse(v as string)) };
  }
  if (NESTED.has(type.typeId)) {
    return { name, kind: 'json', convert: (v) => new JsonValue(jsonConverter(v, type, jsonConverter)) };
  }
  const scalar = SCALARS[type.typeId];
  if (scalar) return { name, kind: scalar.kind, convert: scalar.convert };
  return { name, kind: 'unknown', convert: (v) => String(v) };
}
