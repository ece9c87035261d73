package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.pathmap.PathSpec;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.PathMappingsHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The shop ({@link Shop}) on Jetty 12's core handlers: a handler per endpoint, on 127.0.0.1 at a
 * free port (answers {@code port}), served by a QueuedThreadPool of 20 to 50 threads.
 */
public final class JettyShop {
    private JettyShop() {
    }

    /** Answers with what its endpoint makes of the query; blocking, so Jetty runs it on a pool thread. */
    private static final class EndpointHandler extends Handler.Abstract {
        private final Shop.Endpoint endpoint;

        EndpointHandler(Shop.Endpoint endpoint) {
            this.endpoint = endpoint;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            response.write(true, StandardCharsets.UTF_8.encode(endpoint.answer(request.getHttpURI().getQuery())), callback);
            return true;
        }
    }

    static final class CatalogHandler extends Handler.Abstract {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            String page = "item ".repeat(20_000);
            response.write(true, StandardCharsets.UTF_8.encode(Integer.toString(page.getBytes(StandardCharsets.UTF_8).length)), callback);
            return true;
        }
    }

    public static void main(String[] args) throws Exception {
        Server server = new Server(new QueuedThreadPool(50, 20));
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        PathMappingsHandler paths = new PathMappingsHandler();
        Shop.ENDPOINTS.forEach((path, endpoint) -> paths.addMapping(PathSpec.from(path), new EndpointHandler(endpoint)));
        paths.addMapping(PathSpec.from(Shop.CATALOG), new CatalogHandler());
        server.setHandler(paths);
        server.start();
        int port = connector.getLocalPort();
        TargetMain.serve(command -> Shop.answer(command, port));
    }
}
