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
 * The shop ({@link Shop}) on an embedded Tomcat 10.1: a servlet per endpoint, on 127.0.0.1 at a
 * free port (answers {@code port}), with a pool of 50 workers that all exist from the start.
 * Its one argument is Tomcat's base directory.
 */
public final class TomcatShop {
    private TomcatShop() {
    }

    /** Answers a GET with what its endpoint makes of the query. */
    private static final class EndpointServlet extends HttpServlet {
        private final Shop.Endpoint endpoint;

        EndpointServlet(Shop.Endpoint endpoint) {
            this.endpoint = endpoint;
        }

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain");
            response.getWriter().write(endpoint.answer(request.getQueryString()));
        }
    }

    static final class CatalogServlet extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            String page = "item ".repeat(20_000);
            response.setContentType("text/plain");
            response.getWriter().write(Integer.toString(page.getBytes(StandardCharsets.UTF_8).length));
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
        Shop.ENDPOINTS.forEach((path, endpoint) -> add(context, path, new EndpointServlet(endpoint)));
        add(context, Shop.CATALOG, new CatalogServlet());
        tomcat.start();
        int port = connector.getLocalPort();
        TargetMain.serve(command -> Shop.answer(command, port));
    }

    private static void add(Context context, String path, HttpServlet servlet) {
        Tomcat.addServlet(context, path, servlet);
        context.addServletMappingDecoded(path, path);
    }
}
