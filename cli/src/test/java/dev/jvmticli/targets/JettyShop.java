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
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The shop ({@link Shop}) on Jetty 12's core handlers: one handler per endpoint, on 127.0.0.1 at a
 * free port (answers {@code port}), served by a QueuedThreadPool of 20 to 50 threads.
 */
public final class JettyShop {
    private JettyShop() {
    }

    /** Answers a request with a line of text; blocking, so Jetty runs it on a pool thread. */
    private abstract static class ShopHandler extends Handler.Abstract {
        abstract String answer(Request request);

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            response.write(true, StandardCharsets.UTF_8.encode(answer(request)), callback);
            return true;
        }
    }

    static final class HashHandler extends ShopHandler {
        @Override
        String answer(Request request) {
            return Shop.hash();
        }
    }

    static final class CatalogHandler extends ShopHandler {
        @Override
        String answer(Request request) {
            String page = "item ".repeat(20_000);
            return Integer.toString(page.getBytes(StandardCharsets.UTF_8).length);
        }
    }

    static final class InventoryHandler extends ShopHandler {
        @Override
        String answer(Request request) {
            return Shop.reserve();
        }
    }

    static final class SleepHandler extends ShopHandler {
        @Override
        String answer(Request request) {
            return Shop.sleep();
        }
    }

    static final class LedgerHandler extends ShopHandler {
        @Override
        String answer(Request request) {
            return Shop.ledger();
        }
    }

    static final class DeadlockHandler extends ShopHandler {
        @Override
        String answer(Request request) {
            Fields query = Request.extractQueryParameters(request);
            return Shop.deadlock(query.getValue("side"));
        }
    }

    public static void main(String[] args) throws Exception {
        Server server = new Server(new QueuedThreadPool(50, 20));
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        PathMappingsHandler paths = new PathMappingsHandler();
        paths.addMapping(PathSpec.from("/hash"), new HashHandler());
        paths.addMapping(PathSpec.from("/catalog"), new CatalogHandler());
        paths.addMapping(PathSpec.from("/reserve"), new InventoryHandler());
        paths.addMapping(PathSpec.from("/sleep"), new SleepHandler());
        paths.addMapping(PathSpec.from("/ledger"), new LedgerHandler());
        paths.addMapping(PathSpec.from("/deadlock"), new DeadlockHandler());
        server.setHandler(paths);
        server.start();
        int port = connector.getLocalPort();
        TargetMain.serve(command -> Shop.answer(command, port));
    }
}
