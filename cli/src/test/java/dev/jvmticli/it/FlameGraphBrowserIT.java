package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.analysis.Profile;
import dev.jvmticli.client.AllocReport;
import dev.jvmticli.client.ContentionReport;
import dev.jvmticli.client.MethodRef;
import dev.jvmticli.render.AllocView;
import dev.jvmticli.render.ContentionView;
import dev.jvmticli.render.FlameGraph;
import dev.jvmticli.render.ProfileView;
import dev.jvmticli.testing.Chromium;
import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The flame graph page of each command, made by the command's own view from a profile of more than
 * 50,000 distinct frames, in a real browser (headless Chromium): it draws, a click zooms and the
 * clicked frame then fills the width, typed text highlights and counts the matching frames, each
 * within the time the page is good for (docs/profiling.md). Pixels are judged from screenshots, the
 * page's counts against the test's own stacks; the page's script is only clicked and typed into.
 * The screenshots are left in target/ to look at.
 */
class FlameGraphBrowserIT {
    /** Loading and the first draw; a zoom or search redraw. Limits of use, not benchmarks: see performance.md for figures. */
    private static final long LOAD_MILLIS = 10_000;
    private static final long REDRAW_MILLIS = 3_000;
    private static final int MATCH_RGB = 0xe040e0;
    private static final String HOSTILE_THREAD = "</script><script>window.pwned=1</script>";
    private static final String ODD_THREAD = "quote\"'\u0007bell\u2028";
    private static final List<String> THREADS = List.of("worker-1", "worker-2", "worker-3", "worker-4", "worker-5",
            "worker-6", HOSTILE_THREAD, ODD_THREAD);
    private static Chromium chromium;

    enum Kind { PROFILE, ALLOC, CONTENTION }

    /** A stack as the target would have it: thread, calls outermost first, weight. */
    record Stack(int thread, List<String[]> calls, long weight) {
    }

    @BeforeAll
    static void browser() throws Exception {
        chromium = Chromium.start(1400, 1600);
    }

    @AfterAll
    static void closeBrowser() throws Exception {
        if (chromium != null) {
            chromium.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void fiftyThousandFramesDrawZoomAndSearch(Kind kind, @TempDir Path dir) throws Exception {
        List<Stack> stacks = stacks(new Random(33));
        List<FlameGraph.Sample> samples = samples(kind, stacks);
        Set<String> distinctFrames = new HashSet<>();
        int deepest = 0;
        long total = 0;
        for (FlameGraph.Sample sample : samples) {
            for (int i = 1; i <= sample.frames().size(); i++) {
                distinctFrames.add(String.join("\u0000", sample.frames().subList(0, i)));
            }
            deepest = Math.max(deepest, sample.frames().size());
            total += sample.weight();
        }
        assertTrue(distinctFrames.size() >= 50_000, "frames: " + distinctFrames.size());
        Path page = dir.resolve(kind + ".html");
        Files.writeString(page, FlameGraph.html(kind + " of JVM 1234 <b>", kind == Kind.PROFILE ? "samples" : kind == Kind.ALLOC ? "bytes" : "ns",
                samples), StandardCharsets.UTF_8);

        long started = System.nanoTime();
        chromium.open(page.toUri().toString());
        chromium.painted();
        long loadMillis = (System.nanoTime() - started) / 1_000_000;
        assertTrue(loadMillis <= LOAD_MILLIS, kind + ": loaded and drawn in " + loadMillis + " ms");
        assertEquals(kind + " of JVM 1234 <b>", chromium.evaluate("document.title").asText());
        assertEquals(2, chromium.evaluate("document.scripts.length").asInt(), "no name became a script");
        assertTrue(chromium.evaluate("window.pwned === undefined").asBoolean());

        JsonNode box = chromium.evaluate("(r => [r.left, r.top, r.width, r.height])(document.getElementById('graph').getBoundingClientRect())");
        int left = box.get(0).asInt(), top = box.get(1).asInt(), width = box.get(2).asInt();
        int rows = deepest + 1;
        double row = box.get(3).asDouble() / rows;
        BufferedImage drawn = chromium.screenshot();
        ImageIO.write(drawn, "png", new File("target/flamegraph-" + kind.name().toLowerCase() + ".png"));
        int rootTop = (int) Math.round(top + (rows - 1) * row) + 1;
        assertEquals(1, colors(drawn, left, left + width - 2, rootTop).size(), "the root frame spans the width");
        int threeRows = (int) Math.round(3 * row);
        assertTrue(painted(drawn, left, rootTop + (int) row - threeRows, width, threeRows) > 0.8, kind + ": the outermost frames are drawn");

        // the heaviest outermost frame: its place follows from the frames in name order before it
        TreeMap<String, Long> outermost = new TreeMap<>();
        samples.forEach(s -> outermost.merge(s.frames().get(0), s.weight(), Long::sum));
        String heaviest = outermost.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
        long before = outermost.headMap(heaviest).values().stream().mapToLong(Long::longValue).sum();
        double x = left + (before + outermost.get(heaviest) / 2.0) * width / total;
        int depthOneTop = (int) Math.round(top + (rows - 2) * row) + 1;
        int heaviestColor = drawn.getRGB((int) x, depthOneTop) & 0xffffff;
        assertTrue(colors(drawn, left, left + width - 2, depthOneTop).size() > 1, "several outermost frames share the row");
        chromium.move(x, depthOneTop + row / 2);
        assertTrue(chromium.evaluate("document.getElementById('details').textContent").asText().startsWith(visible(heaviest) + "  "),
                "the details line names the frame under the mouse");

        started = System.nanoTime();
        chromium.click(x, depthOneTop + row / 2);
        chromium.painted();
        long zoomMillis = (System.nanoTime() - started) / 1_000_000;
        assertTrue(zoomMillis <= REDRAW_MILLIS, kind + ": zoomed in " + zoomMillis + " ms");
        BufferedImage zoomed = chromium.screenshot();
        ImageIO.write(zoomed, "png", new File("target/flamegraph-" + kind.name().toLowerCase() + "-zoomed.png"));
        assertEquals(Set.of(heaviestColor), colors(zoomed, left, left + width - 2, depthOneTop), "the clicked frame fills the width");

        JsonNode reset = chromium.evaluate("(r => [r.left + r.width / 2, r.top + r.height / 2])(document.getElementById('reset').getBoundingClientRect())");
        chromium.click(reset.get(0).asDouble(), reset.get(1).asDouble());
        chromium.painted();
        assertEquals(colors(drawn, left, left + width - 2, depthOneTop), colors(chromium.screenshot(), left, left + width - 2, depthOneTop),
                "reset shows every outermost frame again");
        chromium.click(x, depthOneTop + row / 2);
        chromium.press("Escape", 27);
        chromium.painted();
        assertEquals(colors(drawn, left, left + width - 2, depthOneTop), colors(chromium.screenshot(), left, left + width - 2, depthOneTop),
                "Escape resets the zoom too");
        assertEquals(0, count(drawn, MATCH_RGB), "nothing highlighted before a search");

        for (String regex : List.of("hotLoop", "pwned")) {
            JsonNode input = chromium.evaluate("(e => { e.value = ''; const r = e.getBoundingClientRect(); return [r.left + 5, r.top + r.height / 2]; })"
                    + "(document.getElementById('search'))");
            chromium.click(input.get(0).asDouble(), input.get(1).asDouble());
            started = System.nanoTime();
            chromium.type(regex);
            chromium.painted();
            long searchMillis = (System.nanoTime() - started) / 1_000_000;
            assertTrue(searchMillis <= REDRAW_MILLIS, kind + ": searched in " + searchMillis + " ms");
            Pattern pattern = Pattern.compile(regex);
            long frames = distinctFrames.stream().filter(f -> pattern.matcher(f.substring(f.lastIndexOf('\u0000') + 1)).find()).count();
            long weight = samples.stream().filter(s -> s.frames().stream().anyMatch(f -> pattern.matcher(f).find()))
                    .mapToLong(FlameGraph.Sample::weight).sum();
            String reported = chromium.evaluate("document.getElementById('matched').textContent").asText();
            Matcher m = Pattern.compile("([\\d,]+) frames? match(?:es)?, ([\\d.]+)% of all").matcher(reported);
            assertTrue(m.matches(), reported);
            assertTrue(frames > 0);
            assertEquals(frames, Long.parseLong(m.group(1).replace(",", "")), regex + ": " + reported);
            assertEquals(100.0 * weight / total, Double.parseDouble(m.group(2)), 0.006, regex + ": " + reported);
            if (regex.equals("hotLoop")) { // wide enough to see near the root
                BufferedImage highlighted = chromium.screenshot();
                ImageIO.write(highlighted, "png", new File("target/flamegraph-" + kind.name().toLowerCase() + "-search.png"));
                assertTrue(count(highlighted, MATCH_RGB) > 0, "matching frames are highlighted");
            }
            System.out.printf("%s: %,d frames, loaded and drawn in %d ms, zoomed in %d ms, '%s' searched in %d ms%n",
                    kind, distinctFrames.size(), loadMillis, zoomMillis, regex, searchMillis);
        }
        assertTrue(chromium.evaluate("window.pwned === undefined").asBoolean());
    }

    /**
     * Stacks of a server: 30 to 80 calls deep, shared near the root and ever more distinct deeper
     * down, so that tens of thousands of frames are wide enough to draw; a hot loop is called from
     * the outermost frames, and now and then deeper.
     */
    static List<Stack> stacks(Random random) {
        List<Stack> stacks = new ArrayList<>();
        for (int s = 0; s < 1_500; s++) {
            int depth = 30 + random.nextInt(50);
            List<String[]> calls = new ArrayList<>();
            for (int level = 0; level < depth; level++) {
                int choice = (int) (Math.pow(random.nextDouble(), 3) * (2 + level / 2));
                String method = random.nextInt(level == 0 ? 60 : 400) == 0 ? "hotLoop" : "handle" + choice;
                calls.add(new String[] {"com/example/layer" + level + "/Service" + choice % 7, method});
            }
            boolean hot = calls.get(0)[1].equals("hotLoop");
            stacks.add(new Stack(random.nextInt(THREADS.size()), calls, (hot ? 20 : 1) * (1 + random.nextInt(100))));
        }
        return stacks;
    }

    /** The stacks as each command's view turns its report into flame graph samples. */
    static List<FlameGraph.Sample> samples(Kind kind, List<Stack> stacks) {
        return switch (kind) {
            case PROFILE -> {
                List<String> collapsed = new ArrayList<>();
                for (Stack stack : stacks) {
                    StringBuilder line = new StringBuilder("[" + THREADS.get(stack.thread()) + " tid=" + (100 + stack.thread()) + "]");
                    stack.calls().forEach(c -> line.append(';').append(c[0].replace('/', '.')).append('.').append(c[1]).append("_[j]"));
                    collapsed.add(line.append(' ').append(stack.weight()).toString());
                }
                yield ProfileView.flame(Profile.parse(collapsed), true);
            }
            case ALLOC -> {
                List<MethodRef> methods = new ArrayList<>();
                Map<String, Integer> index = new HashMap<>();
                List<AllocReport.Stack> allocs = new ArrayList<>();
                for (Stack stack : stacks) {
                    allocs.add(new AllocReport.Stack(stack.thread(), 1, stack.weight(), stack.weight() * 512, frames(stack, methods, index)));
                }
                List<AllocReport.ClassTotal> classes = THREADS.stream()
                        .map(t -> new AllocReport.ClassTotal("Lcom/example/" + t + ";", 1, 1, 1)).toList();
                yield AllocView.flame(new AllocReport(524288, 1_000_000_000, stacks.size(), 0, 0, 0, 0, classes, allocs, methods));
            }
            case CONTENTION -> {
                List<MethodRef> methods = new ArrayList<>();
                Map<String, Integer> index = new HashMap<>();
                List<ContentionReport.Stack> blocked = new ArrayList<>();
                for (Stack stack : stacks) {
                    blocked.add(new ContentionReport.Stack(stack.thread() % 3, THREADS.get(stack.thread()), null, null, 1, stack.weight() * 1000,
                            frames(stack, methods, index)));
                }
                List<ContentionReport.Monitor> monitors = List.of(0, 1, 2).stream()
                        .map(i -> new ContentionReport.Monitor(i, "Lcom/example/Lock" + i + ";", 0x1234 + i, 1, 1, List.of(), 0)).toList();
                yield ContentionView.flame(new ContentionReport(1_000_000_000, stacks.size(), 0, monitors, blocked, methods, 0, List.of(), List.of(), 0, null, null));
            }
        };
    }

    /** The stack's calls innermost first, as the agent sends frames: {method index, bci, line}; methods grows as needed. */
    private static long[][] frames(Stack stack, List<MethodRef> methods, Map<String, Integer> index) {
        long[][] frames = new long[stack.calls().size()][];
        for (int i = 0; i < frames.length; i++) {
            String[] call = stack.calls().get(frames.length - 1 - i);
            int method = index.computeIfAbsent("L" + call[0] + ";." + call[1], k -> {
                methods.add(new MethodRef("L" + call[0] + ";", call[1], "()V"));
                return methods.size() - 1;
            });
            frames[i] = new long[] {method, 0, -1};
        }
        return frames;
    }

    private static String visible(String name) {
        return name.replace("\u0007", "\\u0007");
    }

    private static Set<Integer> colors(BufferedImage image, int from, int to, int y) {
        Set<Integer> colors = new HashSet<>();
        for (int x = from; x <= to; x++) {
            colors.add(image.getRGB(x, y) & 0xffffff);
        }
        return colors;
    }

    private static double painted(BufferedImage image, int left, int top, int width, int height) {
        long painted = 0;
        for (int y = top; y < top + height; y++) {
            for (int x = left; x < left + width; x++) {
                painted += (image.getRGB(x, y) & 0xffffff) != 0xffffff ? 1 : 0;
            }
        }
        return (double) painted / ((long) width * height);
    }

    private static long count(BufferedImage image, int rgb) {
        long count = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                count += (image.getRGB(x, y) & 0xffffff) == rgb ? 1 : 0;
            }
        }
        return count;
    }
}
