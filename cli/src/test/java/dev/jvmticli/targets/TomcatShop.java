package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

/**
 * The shop ({@link Shop}) on an embedded Tomcat 10.1: one servlet per endpoint, on 127.0.0.1 at a
 * free port (answers {@code port}), with a pool of 50 workers that all exist from the start.
 * Its one argument is Tomcat's base directory.
 */
public final class TomcatShop {
    private TomcatShop() {
    }

    /** Answers a GET with a line of text. */
    private abstract static class ShopServlet extends HttpServlet {
        abstract String answer(HttpServletRequest request);

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain");
            response.getWriter().write(answer(request));
        }
    }

    static final class HashServlet extends ShopServlet {
        @Override
        String answer(HttpServletRequest request) {
            return Shop.hash();
        }
    }

    static final class CatalogServlet extends ShopServlet {
        @Override
        String answer(HttpServletRequest request) {
            String page = "item ".repeat(20_000);
            return Integer.toString(page.getBytes(StandardCharsets.UTF_8).length);
        }
    }

    static final class InventoryServlet extends ShopServlet {
        @Override
        String answer(HttpServletRequest request) {
            return Shop.reserve();
        }
    }

    static final class SleepServlet extends ShopServlet {
        @Override
        String answer(HttpServletRequest request) {
            return Shop.sleep();
        }
    }

    static final class LedgerServlet extends ShopServlet {
        @Override
        String answer(HttpServletRequest request) {
            return Shop.ledger();
        }
    }

    static final class DeadlockServlet extends ShopServlet {
        @Override
        String answer(HttpServletRequest request) {
            return Shop.deadlock(request.getParameter("side"));
        }
    }

    public static void main(String[] args) throws Exception {
        Tomcat tomcat = new Tomcat();
        String base = args[0];
        tomcat.setBaseDir(base);
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        connector.setProperty("maxThreads", "50");
        connector.setProperty("minSpareThreads", "50");
        connector.setProperty("maxKeepAliveRequests", "-1");
        tomcat.getService().addConnector(connector);
        Context context = tomcat.addContext("", base);
        add(context, "/hash", new HashServlet());
        add(context, "/catalog", new CatalogServlet());
        add(context, "/reserve", new InventoryServlet());
        add(context, "/sleep", new SleepServlet());
        add(context, "/ledger", new LedgerServlet());
        add(context, "/deadlock", new DeadlockServlet());
        tomcat.start();
        int port = connector.getLocalPort();
        TargetMain.serve(command -> Shop.answer(command, port));
    }

    private static void add(Context context, String path, HttpServlet servlet) {
        String name = servlet.getClass().getSimpleName();
        Tomcat.addServlet(context, name, servlet);
        context.addServletMappingDecoded(path, name);
    }
}
