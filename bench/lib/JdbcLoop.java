import java.sql.Connection;
import java.sql.Driver;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Properties;

/**
 * The JDBC baseline of `npm run bench -- drivers`: a plain loop over the
 * ResultSet of the statement the helper reads, reading every column as an
 * object. `java -cp <dir>:<driver jar> JdbcLoop <driver class> <url> <sql>`
 * prints the row count.
 */
public final class JdbcLoop {
  public static void main(String[] args) throws Exception {
    Driver driver = (Driver) Class.forName(args[0]).getDeclaredConstructor().newInstance();
    try (Connection conn = driver.connect(args[1], new Properties())) {
      conn.setAutoCommit(false);
      conn.setReadOnly(true);
      try (Statement statement = conn.createStatement()) {
        statement.setFetchSize(2000);
        long count = 0;
        try (ResultSet rows = statement.executeQuery(args[2])) {
          int columns = rows.getMetaData().getColumnCount();
          while (rows.next()) {
            for (int i = 1; i <= columns; i++) rows.getObject(i);
            count++;
          }
        }
        System.out.println(count);
      }
    }
  }
}
