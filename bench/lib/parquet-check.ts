import { DuckDBInstance } from '@duckdb/node-api';
import { DUCK_TABLE } from './dataset.ts';

/** The column types our parquet rules give the benchmark table (formats/parquet.ts). */
export const EXPECTED_TYPES: Record<string, string> = {
  id: 'BIGINT',
  qty: 'BIGINT',
  price: 'DOUBLE',
  name: 'VARCHAR',
  created_at: 'TIMESTAMP',
  updated_at: 'TIMESTAMP WITH TIME ZONE',
};

/** An order-independent digest of every value (integers widened so INTEGER and BIGINT hash alike). */
const DIGEST = 'SELECT count(*)::BIGINT, bit_xor(hash(id::BIGINT, qty::BIGINT, price, name, created_at, updated_at))::VARCHAR';

export interface ReadBack {
  rows: number;
  types: Record<string, string>;
  digest: string;
}

export interface ParquetCheck {
  file: ReadBack;
  source: ReadBack;
  /** Column types as EXPECTED_TYPES. */
  typesOk: boolean;
  /** The table's row count and value digest. */
  valuesOk: boolean;
}

/** DuckDB reads a parquet file the origin wrote: its rows, types and values against the benchmark table's. */
export async function checkParquet(dataFile: string, parquetFile: string, rows: number): Promise<ParquetCheck> {
  const instance = await DuckDBInstance.create(dataFile, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const read = async (from: string): Promise<ReadBack> => {
      const [[count, digest]] = (await connection.runAndReadAll(`${DIGEST} FROM ${from}`)).getRows();
      const described = (await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${from}`)).getRows();
      return { rows: Number(count), digest: String(digest), types: Object.fromEntries(described.map((r) => [String(r[0]), String(r[1])])) };
    };
    const file = await read(`read_parquet('${parquetFile}')`);
    const source = await read(DUCK_TABLE);
    return {
      file,
      source,
      typesOk: JSON.stringify(file.types) === JSON.stringify(EXPECTED_TYPES),
      valuesOk: file.rows === rows && file.digest === source.digest,
    };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** One line for a result's notes: the types read back and whether the values match. */
export function checkNote(label: string, check: ParquetCheck): string {
  return (
    `${label}: read back as ${Object.entries(check.file.types).map(([k, v]) => `${k} ${v}`).join(', ')}` +
    ` (${check.typesOk ? 'as documented' : `expected ${JSON.stringify(EXPECTED_TYPES)}`}); value digest ${check.valuesOk ? 'equals' : '**differs from**'} the table's.`
  );
}
