package dev.jvmticli.springshop;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring Boot shop whose requests run on virtual threads (application.properties), with a
 * HikariCP pool of 4 on an in-memory H2: a fast JSON answer ({@code /fast}), a query that holds
 * its connection ~50 ms ({@code /orders/count}), a 5 ms section inside one shared monitor
 * ({@code /sync}) and a slow leak ({@code /leak}).
 *
 * <p>Started by SpringBootIT as its test targets are: it prints {@code READY pid} once it serves,
 * then answers one line per line read from stdin ({@code port}; {@code inventory}: the monitor's
 * enters and the nanoseconds they waited, as the requests themselves measured them, then the same
 * for the enters that found it held), and exits
 * when stdin closes.
 */
@SpringBootApplication
public class SpringShop {
    public static void main(String[] args) throws Exception {
        ConfigurableApplicationContext context = SpringApplication.run(SpringShop.class, args);
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        Inventory inventory = context.getBean(Inventory.class);
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            switch (line) {
                case "port" -> System.out.println("port " + port);
                case "inventory" -> System.out.println("inventory " + inventory.enters() + " " + inventory.waitedNanos() + " "
                        + inventory.contendedEnters() + " " + inventory.contendedWaitedNanos());
                case "exit" -> Runtime.getRuntime().halt(0);
                default -> System.out.println("unknown command " + line);
            }
            System.out.flush();
        }
        Runtime.getRuntime().halt(0);
    }
}
