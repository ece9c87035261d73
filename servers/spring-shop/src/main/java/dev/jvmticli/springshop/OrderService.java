package dev.jvmticli.springshop;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;
import org.springframework.stereotype.Service;

@Service
public class OrderService {
    private final DataSource dataSource;
    private final PoolRecord record;

    public OrderService(DataSource dataSource, PoolRecord record) {
        this.dataSource = dataSource;
        this.record = record;
    }

    /**
     * Counts the orders and keeps the pool's connection ~50 ms more, as a slow report would; notes
     * how long getConnection took and how long this thread held the connection.
     */
    public long countOrdersSlowly() throws Exception {
        long asked = System.nanoTime();
        Connection connection = dataSource.getConnection();
        long got = System.nanoTime();
        record.borrowed(asked, got);
        try (connection;
             Statement statement = connection.createStatement();
             ResultSet count = statement.executeQuery("SELECT COUNT(*) FROM orders")) {
            count.next();
            Thread.sleep(50);
            return count.getLong(1);
        } finally {
            record.held(got, System.nanoTime());
        }
    }
}
