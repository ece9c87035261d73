package dev.jvmticli.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.awt.image.BufferedImage;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;

/**
 * Headless Chromium (Debian's {@code chromium}) driven over the DevTools protocol on a WebSocket:
 * real mouse and keyboard input into one page, its state read back by script, its pixels by screenshot.
 */
public final class Chromium implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("DevTools listening on ws://127\\.0\\.0\\.1:(\\d+)/");
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);

    private final ObjectMapper mapper = new ObjectMapper();
    private final Process process;
    private final Path profileDir;
    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();

    private Chromium(Process process, Path profileDir, WebSocket socket) {
        this.process = process;
        this.profileDir = profileDir;
        this.socket = socket;
    }

    /** A browser with one blank page of width x height CSS pixels, at one device pixel per CSS pixel. */
    public static Chromium start(int width, int height) throws IOException, InterruptedException {
        Path profileDir = Files.createTempDirectory("jvmti-cli-chromium");
        Process process = new ProcessBuilder("chromium", "--headless=new", "--disable-gpu", "--no-sandbox",
                "--remote-debugging-port=0", "--remote-allow-origins=*", "--user-data-dir=" + profileDir,
                "--no-first-run", "--window-size=" + width + "," + height, "--force-device-scale-factor=1", "about:blank")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        int port = devToolsPort(process);
        HttpClient http = HttpClient.newHttpClient();
        JsonNode targets = new ObjectMapper().readTree(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list")).build(),
                HttpResponse.BodyHandlers.ofString()).body());
        String page = null;
        for (JsonNode target : targets) {
            if (target.path("type").asText().equals("page")) {
                page = target.path("webSocketDebuggerUrl").asText();
            }
        }
        if (page == null) {
            process.destroyForcibly();
            throw new IllegalStateException("Chromium shows no page: " + targets);
        }
        Listener listener = new Listener();
        WebSocket socket = http.newWebSocketBuilder().buildAsync(URI.create(page), listener).join();
        Chromium chromium = new Chromium(process, profileDir, socket);
        listener.owner = chromium;
        return chromium;
    }

    private static int devToolsPort(Process process) throws IOException {
        BufferedReader err = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        for (String line; (line = err.readLine()) != null; ) {
            seen.append(line).append('\n');
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                Thread drain = new Thread(() -> {
                    try {
                        err.transferTo(Writer.nullWriter());
                    } catch (IOException e) {
                        // the browser has gone
                    }
                }, "chromium-stderr");
                drain.setDaemon(true);
                drain.start();
                return Integer.parseInt(m.group(1));
            }
        }
        throw new IllegalStateException("Chromium ended before it listened: " + seen);
    }

    /** One DevTools command; its result, or an exception with the protocol's error. */
    public JsonNode call(String method, Map<String, ?> params) {
        int id = ids.incrementAndGet();
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        pending.put(id, answer);
        ObjectNode request = mapper.createObjectNode().put("id", id).put("method", method);
        request.set("params", mapper.valueToTree(params));
        socket.sendText(request.toString(), true).join();
        JsonNode response;
        try {
            response = answer.get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(method + ": no answer from Chromium", e);
        } finally {
            pending.remove(id);
        }
        if (response.has("error")) {
            throw new IllegalStateException(method + ": " + response.get("error"));
        }
        return response.path("result");
    }

    /** Opens url and waits for its load event (the page's own scripts have run by then). */
    public void open(String url) {
        call("Runtime.enable", Map.of());
        call("Page.navigate", Map.of("url", url));
        evaluate("new Promise(done => document.readyState === 'complete' ? done(1) : addEventListener('load', () => done(1)))");
    }

    /** The value of a script expression; a promise is awaited. */
    public JsonNode evaluate(String expression) {
        JsonNode result = call("Runtime.evaluate", Map.of("expression", expression, "returnByValue", true, "awaitPromise", true));
        if (result.has("exceptionDetails")) {
            throw new IllegalStateException(expression + ": " + result.get("exceptionDetails"));
        }
        return result.path("result").path("value");
    }

    /** Waits until the page has painted what its handlers drew (two animation frames). */
    public void painted() {
        evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(1))))");
    }

    /** A left click at (x, y) in CSS pixels of the viewport, as a mouse makes it: move, press, release. */
    public void click(double x, double y) {
        mouse("mouseMoved", x, y, 0);
        mouse("mousePressed", x, y, 1);
        mouse("mouseReleased", x, y, 1);
    }

    public void move(double x, double y) {
        mouse("mouseMoved", x, y, 0);
    }

    private void mouse(String type, double x, double y, int clicks) {
        call("Input.dispatchMouseEvent", Map.of("type", type, "x", x, "y", y, "button", clicks == 0 ? "none" : "left",
                "buttons", type.equals("mousePressed") ? 1 : 0, "clickCount", clicks));
    }

    /** A key pressed and released, such as "Escape" (key code 27). */
    public void press(String key, int keyCode) {
        for (String type : new String[] {"rawKeyDown", "keyUp"}) {
            call("Input.dispatchKeyEvent", Map.of("type", type, "key", key, "code", key, "windowsVirtualKeyCode", keyCode));
        }
    }

    /** Text typed into the focused element, as an input method commits it (one input event). */
    public void type(String text) {
        call("Input.insertText", Map.of("text", text));
    }

    /** The whole page, beyond the viewport too, at one pixel per CSS pixel. */
    public BufferedImage screenshot() {
        JsonNode shot = call("Page.captureScreenshot", Map.of("format", "png", "captureBeyondViewport", true));
        try {
            return ImageIO.read(new ByteArrayInputStream(Base64.getDecoder().decode(shot.path("data").asText())));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        socket.abort();
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
        try (var files = Files.walk(profileDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private void received(String message) {
        try {
            JsonNode json = mapper.readTree(message);
            if (json.has("id")) {
                CompletableFuture<JsonNode> answer = pending.get(json.get("id").asInt());
                if (answer != null) {
                    answer.complete(json);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Puts a message's fragments together; events (messages without an id) are not needed and dropped. */
    private static final class Listener implements WebSocket.Listener {
        private final StringBuilder message = new StringBuilder();
        volatile Chromium owner;

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            message.append(data);
            if (last) {
                owner.received(message.toString());
                message.setLength(0);
            }
            webSocket.request(1);
            return null;
        }
    }
}
