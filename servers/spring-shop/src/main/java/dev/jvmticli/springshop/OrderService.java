package dev.jvmticli.springshop;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;
import org.springframework.stereotype.Service;

@Service
public class OrderService {
    private final DataSource dataSource;

    public OrderService(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Counts the orders and keeps the pool's connection ~50 ms more, as a slow report would. */
    public long countOrdersSlowly() throws Exception {
        try (Connection connection = dataSource.getConnection();
             Statement statement = connection.createStatement();
             ResultSet count = statement.executeQuery("SELECT COUNT(*) FROM orders")) {
            count.next();
            Thread.sleep(50);
            return count.getLong(1);
        }
    }
}
