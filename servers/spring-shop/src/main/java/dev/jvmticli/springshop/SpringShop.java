package dev.jvmticli.springshop;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
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
 * for the enters that found it held; {@code now}: its System.nanoTime; {@code borrows SINCE UNTIL}:
 * the getConnection calls of /orders/count that ran at some moment of [SINCE, UNTIL], when each was
 * asked and answered; {@code holders SINCE UNTIL}: the threads,
 * {@code name#id}, that held one of the pool's connections at some moment of it), and exits
 * when stdin closes.
 */
@SpringBootApplication
public class SpringShop {
    public static void main(String[] args) throws Exception {
        ConfigurableApplicationContext context = SpringApplication.run(SpringShop.class, args);
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        Inventory inventory = context.getBean(Inventory.class);
        PoolRecord pool = context.getBean(PoolRecord.class);
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            switch (line) {
                case "port" -> System.out.println("port " + port);
                case "inventory" -> System.out.println("inventory " + inventory.enters() + " " + inventory.waitedNanos() + " "
                        + inventory.contendedEnters() + " " + inventory.contendedWaitedNanos());
                case "now" -> System.out.println("now " + System.nanoTime());
                case "exit" -> Runtime.getRuntime().halt(0);
                default -> System.out.println(askPool(pool, line.split(" ")));
            }
            System.out.flush();
        }
        Runtime.getRuntime().halt(0);
    }

    /** {@code borrows SINCE UNTIL}, {@code holders SINCE UNTIL} (PoolRecord's), or says the command is not known. */
    private static String askPool(PoolRecord pool, String[] words) {
        if (words[0].equals("borrows") && words.length == 3) {
            return "borrows" + pool.borrows(Long.parseLong(words[1]), Long.parseLong(words[2])).stream().map(b -> " " + b[0] + " " + b[1])
                    .collect(Collectors.joining());
        }
        if (words[0].equals("holders") && words.length == 3) {
            return "holders " + String.join(" ", pool.holders(Long.parseLong(words[1]), Long.parseLong(words[2])));
        }
        return "unknown command " + String.join(" ", words);
    }
}
