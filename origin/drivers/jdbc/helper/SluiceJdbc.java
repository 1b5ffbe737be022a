import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Driver;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Sluice's JDBC helper: one process per connection pool, speaking JSON lines.
 * The first line on stdin names the driver and the URL (and credentials, never
 * on the command line); every later line is a command for one session (`id`),
 * run on that session's own thread, answered by one line with the same `id`.
 * Rows are read only when Node asks for the next batch (`next`), so a slow
 * client holds the database cursor, not memory. Numbers that doubles cannot
 * hold travel as text; dates and times as ISO text; zoned instants as epoch
 * microseconds; bytes as base64.
 */
public final class SluiceJdbc {
  private static final Writer OUT = new OutputStreamWriter(System.out, StandardCharsets.UTF_8);
  private static final Map<Integer, Session> SESSIONS = new ConcurrentHashMap<>();
  private static Driver driver;
  private static String url;
  private static final Properties PROPS = new Properties();

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    Map<String, Object> setup = Json.object(in.readLine());
    url = (String) setup.get("url");
    if (setup.get("user") != null) PROPS.setProperty("user", (String) setup.get("user"));
    if (setup.get("password") != null) PROPS.setProperty("password", (String) setup.get("password"));
    try {
      driver = (Driver) Class.forName((String) setup.get("driver")).getDeclaredConstructor().newInstance();
      send("{\"id\":0,\"ok\":true}");
    } catch (Throwable error) {
      send("{\"id\":0,\"error\":" + Json.quote("driver class " + setup.get("driver") + " could not be loaded: " + error) + "}");
    }
    String line;
    while ((line = in.readLine()) != null) {
      Map<String, Object> command = Json.object(line);
      int id = ((Number) command.get("id")).intValue();
      String op = (String) command.get("op");
      if (op.equals("cancel")) {
        Session session = SESSIONS.get(id);
        if (session != null) session.cancel();
        continue;
      }
      Session session = SESSIONS.computeIfAbsent(id, Session::new);
      session.worker.submit(() -> session.handle(op, command));
    }
    System.exit(0);
  }

  static synchronized void send(String line) {
    try {
      OUT.write(line);
      OUT.write('\n');
      OUT.flush();
    } catch (Exception error) {
      System.exit(1);
    }
  }

  static final class Session {
    final int id;
    final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r);
      t.setDaemon(true);
      return t;
    });
    Connection conn;
    volatile PreparedStatement statement;
    ResultSet rows;
    int[] kinds;

    Session(int id) {
      this.id = id;
    }

    void cancel() {
      PreparedStatement s = statement;
      try {
        if (s != null) s.cancel();
      } catch (Exception ignored) {
        // best effort: Node kills the helper when it must
      }
    }

    void handle(String op, Map<String, Object> command) {
      try {
        switch (op) {
          case "open": {
            conn = driver.connect(url, PROPS);
            if (conn == null) throw new IllegalArgumentException("the driver does not accept this jdbc_url");
            conn.setAutoCommit(false);
            reply("\"ok\":true");
            break;
          }
          case "query": query(command); break;
          case "next": next(((Number) command.get("rows")).intValue()); break;
          case "finish": {
            finish(Boolean.TRUE.equals(command.get("commit")));
            if (Boolean.TRUE.equals(command.get("renew"))) renew();
            reply("\"ok\":true");
            break;
          }
          case "ping": reply("\"ok\":" + conn.isValid(10)); break;
          case "catalog": catalog(command); break;
          case "close": {
            SESSIONS.remove(id);
            if (conn != null) conn.close();
            reply("\"ok\":true");
            worker.shutdown();
            break;
          }
          default: throw new IllegalArgumentException("unknown op " + op);
        }
      } catch (Throwable error) {
        String state = error instanceof java.sql.SQLException ? ((java.sql.SQLException) error).getSQLState() : null;
        String message = error.getMessage() == null ? error.toString() : error.getMessage();
        reply("\"error\":" + Json.quote(message) + ",\"state\":" + (state == null ? "null" : Json.quote(state)));
      }
    }

    void reply(String body) {
      send("{\"id\":" + id + "," + body + "}");
    }

    void query(Map<String, Object> command) throws Exception {
      conn.setReadOnly(Boolean.TRUE.equals(command.get("readOnly")));
      statement = conn.prepareStatement((String) command.get("sql"));
      statement.setFetchSize(((Number) command.get("fetch")).intValue());
      List<?> params = (List<?>) command.get("params");
      for (int i = 0; i < params.size(); i++) bind(i + 1, (Map<?, ?>) params.get(i));
      if (!statement.execute()) {
        reply("\"columns\":[],\"count\":" + statement.getUpdateCount());
        return;
      }
      rows = statement.getResultSet();
      ResultSetMetaData meta = rows.getMetaData();
      int n = meta.getColumnCount();
      kinds = new int[n];
      StringBuilder out = new StringBuilder("\"columns\":[");
      for (int i = 1; i <= n; i++) {
        String type = meta.getColumnTypeName(i);
        kinds[i - 1] = Kind.of(meta.getColumnType(i), type);
        if (i > 1) out.append(',');
        out.append('[').append(Json.quote(meta.getColumnLabel(i))).append(',').append(Json.quote(type)).append(',')
            .append(Json.quote(Kind.NAMES[kinds[i - 1]])).append(']');
      }
      reply(out.append(']').toString());
    }

    void bind(int index, Map<?, ?> param) throws Exception {
      String type = (String) param.get("t");
      Object value = param.get("v");
      switch (type) {
        case "null": statement.setObject(index, null); break;
        case "int": statement.setLong(index, Long.parseLong((String) value)); break;
        case "bigint": statement.setBigDecimal(index, new BigDecimal((String) value)); break;
        case "float": statement.setDouble(index, ((Number) value).doubleValue()); break;
        case "bool": statement.setBoolean(index, (Boolean) value); break;
        default: statement.setString(index, (String) value);
      }
    }

    void next(int max) throws Exception {
      StringBuilder out = new StringBuilder("\"rows\":[");
      int count = 0;
      boolean done = rows == null;
      while (!done && count < max) {
        if (!rows.next()) {
          done = true;
          break;
        }
        if (count++ > 0) out.append(',');
        out.append('[');
        for (int i = 0; i < kinds.length; i++) {
          if (i > 0) out.append(',');
          Kind.write(out, rows, i + 1, kinds[i]);
        }
        out.append(']');
      }
      reply(out.append("],\"done\":").append(done).toString());
    }

    void finish(boolean commit) throws Exception {
      try {
        if (rows != null) rows.close();
        if (statement != null) statement.close();
      } finally {
        rows = null;
        statement = null;
        if (commit) conn.commit();
        else conn.rollback();
      }
    }

    /**
     * A new JDBC connection in place of this one, for a database with no way to
     * reset a session (H2): opened before the old one closes, so an in-memory
     * database without DB_CLOSE_DELAY outlives the swap.
     */
    void renew() throws Exception {
      Connection next = driver.connect(url, PROPS);
      next.setAutoCommit(false);
      Connection old = conn;
      conn = next;
      old.close();
    }

    /** Tables and columns of a schema (`schema` null: the session's own), or the schemas, or one table's columns. */
    void catalog(Map<String, Object> command) throws Exception {
      DatabaseMetaData meta = conn.getMetaData();
      String what = (String) command.get("what");
      StringBuilder out = new StringBuilder("\"rows\":[");
      if (what.equals("schemas")) {
        ResultSet rs = meta.getSchemas();
        boolean first = true;
        while (rs.next()) {
          if (!first) out.append(',');
          first = false;
          out.append(Json.quote(rs.getString("TABLE_SCHEM")));
        }
        rs.close();
        reply(out.append("],\"current\":").append(Json.quote(conn.getSchema())).toString());
        return;
      }
      String schema = command.get("schema") == null ? conn.getSchema() : (String) command.get("schema");
      String table = (String) command.get("table");
      Map<String, String> kinds = new LinkedHashMap<>();
      ResultSet tables = meta.getTables(null, schema, table == null ? "%" : table, new String[] {"TABLE", "VIEW", "BASE TABLE"});
      while (tables.next()) kinds.put(tables.getString("TABLE_NAME"), tables.getString("TABLE_TYPE"));
      tables.close();
      List<String> lines = new ArrayList<>();
      ResultSet cols = meta.getColumns(null, schema, table == null ? "%" : table, "%");
      while (cols.next()) {
        String name = cols.getString("TABLE_NAME");
        if (!kinds.containsKey(name)) continue;
        String type = cols.getString("TYPE_NAME");
        int sqlType = cols.getInt("DATA_TYPE");
        if (sqlType == Types.DECIMAL || sqlType == Types.NUMERIC) type += "(" + cols.getInt("COLUMN_SIZE") + ", " + cols.getInt("DECIMAL_DIGITS") + ")";
        lines.add("[" + Json.quote(name) + "," + Json.quote(kinds.get(name)) + "," + Json.quote(cols.getString("COLUMN_NAME")) + ","
            + Json.quote(type) + "," + (cols.getInt("NULLABLE") != DatabaseMetaData.columnNoNulls) + "," + cols.getInt("ORDINAL_POSITION") + "]");
      }
      cols.close();
      reply(out.append(String.join(",", lines)).append("]").toString());
    }
  }

  /** What a column's values are written as. */
  static final class Kind {
    static final String[] NAMES = {"unknown", "boolean", "integer", "bigint", "decimal", "float", "text", "date", "time", "timestamp", "timestamptz", "binary"};

    static int of(int sqlType, String typeName) {
      String name = typeName == null ? "" : typeName.toLowerCase();
      switch (sqlType) {
        case Types.BIT: case Types.BOOLEAN: return 1;
        case Types.TINYINT: case Types.SMALLINT: case Types.INTEGER: return 2;
        case Types.BIGINT: return 3;
        case Types.DECIMAL: case Types.NUMERIC: return 4;
        case Types.REAL: case Types.FLOAT: case Types.DOUBLE: return 5;
        case Types.CHAR: case Types.VARCHAR: case Types.LONGVARCHAR: case Types.NCHAR: case Types.NVARCHAR:
        case Types.LONGNVARCHAR: case Types.CLOB: case Types.NCLOB: return 6;
        case Types.DATE: return 7;
        case Types.TIME: return name.contains("tz") || name.contains("time zone") ? 6 : 8;
        case Types.TIMESTAMP: return name.contains("tz") || name.contains("time zone") ? 10 : 9;
        case Types.TIMESTAMP_WITH_TIMEZONE: return 10;
        case Types.TIME_WITH_TIMEZONE: return 6;
        case Types.BINARY: case Types.VARBINARY: case Types.LONGVARBINARY: case Types.BLOB: return 11;
        default: return 0;
      }
    }

    static void write(StringBuilder out, ResultSet rs, int i, int kind) throws Exception {
      switch (kind) {
        case 1: { boolean v = rs.getBoolean(i); out.append(rs.wasNull() ? "null" : String.valueOf(v)); return; }
        case 2: { long v = rs.getLong(i); out.append(rs.wasNull() ? "null" : String.valueOf(v)); return; }
        case 3: { long v = rs.getLong(i); out.append(rs.wasNull() ? "null" : "\"" + v + "\""); return; }
        case 4: { BigDecimal v = rs.getBigDecimal(i); out.append(v == null ? "null" : "\"" + v.toPlainString() + "\""); return; }
        case 5: {
          double v = rs.getDouble(i);
          if (rs.wasNull()) out.append("null");
          else if (Double.isNaN(v) || Double.isInfinite(v)) out.append('"').append(v).append('"');
          else out.append(v);
          return;
        }
        case 7: { LocalDate v = rs.getObject(i, LocalDate.class); out.append(v == null ? "null" : "\"" + v + "\""); return; }
        case 8: { LocalTime v = rs.getObject(i, LocalTime.class); out.append(v == null ? "null" : "\"" + time(v) + "\""); return; }
        case 9: {
          LocalDateTime v = rs.getObject(i, LocalDateTime.class);
          out.append(v == null ? "null" : "\"" + v.toLocalDate() + "T" + time(v.toLocalTime()) + "\"");
          return;
        }
        case 10: {
          OffsetDateTime v = rs.getObject(i, OffsetDateTime.class);
          out.append(v == null ? "null" : "\"" + (v.toEpochSecond() * 1_000_000L + v.getNano() / 1000) + "\"");
          return;
        }
        case 11: { byte[] v = rs.getBytes(i); out.append(v == null ? "null" : "\"" + Base64.getEncoder().encodeToString(v) + "\""); return; }
        default: { String v = rs.getString(i); out.append(v == null ? "null" : Json.quote(v)); }
      }
    }

    /** `HH:MM:SS` and the fraction's digits without trailing zeros (LocalTime's own text drops zero seconds). */
    static String time(LocalTime t) {
      String base = String.format("%02d:%02d:%02d", t.getHour(), t.getMinute(), t.getSecond());
      if (t.getNano() == 0) return base;
      String fraction = String.format("%09d", t.getNano()).replaceAll("0+$", "");
      return base + "." + fraction;
    }
  }

  /** The JSON this protocol needs: objects, arrays, strings, numbers, booleans, null. */
  static final class Json {
    private final String text;
    private int at;

    private Json(String text) {
      this.text = text;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(String line) {
      return (Map<String, Object>) new Json(line).value();
    }

    static String quote(String s) {
      StringBuilder out = new StringBuilder("\"");
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        switch (c) {
          case '"': out.append("\\\""); break;
          case '\\': out.append("\\\\"); break;
          case '\n': out.append("\\n"); break;
          case '\r': out.append("\\r"); break;
          case '\t': out.append("\\t"); break;
          default:
            if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
      }
      return out.append('"').toString();
    }

    private void skip() {
      while (at < text.length() && Character.isWhitespace(text.charAt(at))) at++;
    }

    private Object value() {
      skip();
      char c = text.charAt(at);
      if (c == '{') {
        Map<String, Object> map = new LinkedHashMap<>();
        at++;
        skip();
        if (text.charAt(at) == '}') { at++; return map; }
        while (true) {
          skip();
          String key = string();
          skip();
          at++; // ':'
          map.put(key, value());
          skip();
          if (text.charAt(at++) == '}') return map;
        }
      }
      if (c == '[') {
        List<Object> list = new ArrayList<>();
        at++;
        skip();
        if (text.charAt(at) == ']') { at++; return list; }
        while (true) {
          list.add(value());
          skip();
          if (text.charAt(at++) == ']') return list;
        }
      }
      if (c == '"') return string();
      if (text.startsWith("true", at)) { at += 4; return Boolean.TRUE; }
      if (text.startsWith("false", at)) { at += 5; return Boolean.FALSE; }
      if (text.startsWith("null", at)) { at += 4; return null; }
      int start = at;
      while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) at++;
      return Double.valueOf(text.substring(start, at));
    }

    private String string() {
      StringBuilder out = new StringBuilder();
      at++;
      while (true) {
        char c = text.charAt(at++);
        if (c == '"') return out.toString();
        if (c != '\\') { out.append(c); continue; }
        char e = text.charAt(at++);
        switch (e) {
          case 'n': out.append('\n'); break;
          case 'r': out.append('\r'); break;
          case 't': out.append('\t'); break;
          case 'b': out.append('\b'); break;
          case 'f': out.append('\f'); break;
          case 'u': out.append((char) Integer.parseInt(text.substring(at, at + 4), 16)); at += 4; break;
          default: out.append(e);
        }
      }
    }
  }
}
