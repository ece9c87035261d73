package dev.jvmticli.render;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Weighted stacks as flame graphs: the collapsed-stack text format ({@code root;child;leaf weight},
 * one line per distinct stack, as flamegraph.pl, speedscope and others read it), and a
 * self-contained HTML page that draws the graph on a canvas: click a frame to zoom, type a regular
 * expression to highlight frames and see their share. One page for every command that weighs
 * stacks. The page loads nothing from the network.
 *
 * <p>The page carries the frames flat, in depth-first order with children in name order, each as
 * four numbers (name index, depth, left edge and width in units of weight) and each distinct name
 * once: a server's profile of tens of thousands of frames stays small, and a redraw visits each
 * frame once without building anything (figures in docs/performance.md).
 */
public final class FlameGraph {
    private FlameGraph() {
    }

    /** One stack, outermost frame first, and its weight. */
    public record Sample(List<String> frames, long weight) {
    }

    /** A frame name that cannot break the collapsed format: printable, and no ';'. */
    static String clean(String frame) {
        return Printable.text(frame).replace(';', ':');
    }

    public static String collapsed(List<Sample> samples) {
        Map<String, Long> merged = new TreeMap<>();
        for (Sample sample : samples) {
            if (sample.weight() <= 0 || sample.frames().isEmpty()) {
                continue;
            }
            String key = String.join(";", sample.frames().stream().map(FlameGraph::clean).toList());
            merged.merge(key, sample.weight(), Long::sum);
        }
        StringBuilder out = new StringBuilder();
        merged.forEach((stack, weight) -> out.append(stack).append(' ').append(weight).append('\n'));
        return out.toString();
    }

    private static final class Node {
        final String name;
        long weight;
        final Map<String, Node> children = new TreeMap<>();

        Node(String name) {
            this.name = Printable.text(name);
        }
    }

    /** The page: title and unit are shown as text; unit names the weight ("bytes", "ns"). */
    public static String html(String title, String unit, List<Sample> samples) {
        Node root = new Node("all");
        for (Sample sample : samples) {
            if (sample.weight() <= 0) {
                continue;
            }
            root.weight += sample.weight();
            Node node = root;
            for (String frame : sample.frames()) {
                node = node.children.computeIfAbsent(frame, Node::new);
                node.weight += sample.weight();
            }
        }
        StringBuilder data = new StringBuilder("{\"title\":");
        jsonString(data, title);
        data.append(",\"unit\":");
        jsonString(data, unit);
        data.append(",\"frames\":[");
        Map<String, Integer> nameIndex = new HashMap<>();
        StringBuilder names = new StringBuilder();
        frames(root, data, nameIndex, names);
        data.setLength(data.length() - 1);
        data.append("],\"names\":[").append(names).append("]}");
        // by place, not by replacing: a name or title may itself read "@DATA@"
        int titleAt = PAGE.indexOf("@TITLE@"), dataAt = PAGE.indexOf("@DATA@");
        return PAGE.substring(0, titleAt) + escapeHtml(title) + PAGE.substring(titleAt + "@TITLE@".length(), dataAt)
                + data + PAGE.substring(dataAt + "@DATA@".length());
    }

    private record Placed(Node node, int depth, long left) {
    }

    /** Each frame as name index, depth, left edge and width, depth first, children in name order. */
    private static void frames(Node root, StringBuilder out, Map<String, Integer> nameIndex, StringBuilder names) {
        Deque<Placed> pending = new ArrayDeque<>();
        pending.push(new Placed(root, 0, 0));
        while (!pending.isEmpty()) {
            Placed placed = pending.pop();
            Integer index = nameIndex.get(placed.node.name);
            if (index == null) {
                index = nameIndex.size();
                nameIndex.put(placed.node.name, index);
                if (index > 0) {
                    names.append(',');
                }
                jsonString(names, visible(placed.node.name));
            }
            out.append(index).append(',').append(placed.depth).append(',')
                    .append(placed.left).append(',').append(placed.node.weight).append(',');
            List<Node> children = List.copyOf(placed.node.children.values());
            long right = placed.left + placed.node.weight;
            for (int i = children.size() - 1; i >= 0; i--) {
                right -= children.get(i).weight;
                pending.push(new Placed(children.get(i), placed.depth + 1, right));
            }
        }
    }

    /** Control characters, which a target's class or thread names may hold, as {@code \\uXXXX} text. */
    private static String visible(String name) {
        StringBuilder out = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isISOControl(c)) {
                unicodeEscape(out, c);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /**
     * A JSON string of printable ASCII only: anything else as a {@code \\uXXXX} escape, and so are
     * '<', '>' and '&', so that no name can end the script element it is embedded in
     * ({@code </script>}, {@code <!--}) and a lone surrogate cannot make the page invalid UTF-8.
     */
    private static void jsonString(StringBuilder out, String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&') {
                out.append(c);
            } else {
                unicodeEscape(out, c);
            }
        }
        out.append('"');
    }

    private static void unicodeEscape(StringBuilder out, char c) {
        out.append("\\u").append(HEX[c >> 12 & 15]).append(HEX[c >> 8 & 15]).append(HEX[c >> 4 & 15]).append(HEX[c & 15]);
    }

    static String escapeHtml(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static final String PAGE = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>@TITLE@</title>
            <style>
              body { font: 12px sans-serif; margin: 10px; }
              h1 { font-size: 15px; margin: 0 0 6px; }
              #bar { margin: 6px 0; }
              #details { font-family: monospace; height: 1.5em; white-space: pre; overflow: hidden; text-overflow: ellipsis; }
              #graph { display: block; width: 100%; cursor: pointer; }
            </style>
            </head>
            <body>
            <h1 id="title"></h1>
            <div id="bar"><input id="search" size="40" placeholder="highlight: regular expression" spellcheck="false">
              <button id="reset">reset zoom</button> <span id="matched"></span></div>
            <div id="details"></div>
            <canvas id="graph"></canvas>
            <script type="application/json" id="data">@DATA@</script>
            <script>
            "use strict";
            (() => {
            const data = JSON.parse(document.getElementById("data").textContent);
            const ROW = 16, FONT = "11px monospace", MATCH_COLOR = "#e040e0", NARROWEST = 0.5;
            const names = data.names, count = data.frames.length / 4;
            const nameOf = new Int32Array(count), depthOf = new Int32Array(count);
            const leftOf = new Float64Array(count), widthOf = new Float64Array(count);
            const levels = [];
            for (let i = 0; i < count; i++) {
              nameOf[i] = data.frames[4 * i];
              depthOf[i] = data.frames[4 * i + 1];
              leftOf[i] = data.frames[4 * i + 2];
              widthOf[i] = data.frames[4 * i + 3];
              (levels[depthOf[i]] = levels[depthOf[i]] || []).push(i);
            }
            const rows = levels.length;
            const canvas = document.getElementById("graph"), context = canvas.getContext("2d");
            const details = document.getElementById("details"), matched = document.getElementById("matched");
            const colors = new Array(names.length);
            let zoomed = 0, matches = null, origin = 0, scale = 1;

            // the kinds async-profiler annotates keep the hues its own graphs give them
            function colorOf(n) {
              if (colors[n]) return colors[n];
              const name = names[n];
              let h = 0;
              for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
              let hue = 5 + h % 45, saturation = 80, light = 55 + h % 15;
              if (name.endsWith("_[j]")) { hue = 95 + h % 30; saturation = 55; light = 50 + h % 15; }
              else if (name.endsWith("_[i]")) { hue = 170 + h % 15; saturation = 55; light = 50 + h % 15; }
              else if (name.endsWith("_[1]")) { hue = 65 + h % 15; saturation = 60; }
              else if (name.endsWith("_[0]")) { hue = 195 + h % 20; saturation = 60; light = 60 + h % 15; }
              else if (name.endsWith("_[k]")) { hue = 25 + h % 10; saturation = 90; }
              else if (name.startsWith("[")) { saturation = 10; light = 70 + h % 10; }
              return colors[n] = "hsl(" + hue + "," + saturation + "%," + light + "%)";
            }
            function amount(weight) { return weight.toLocaleString("en-US") + " " + data.unit; }
            function describe(i) {
              return names[nameOf[i]] + "  " + amount(widthOf[i]) + " (" + (100 * widthOf[i] / widthOf[0]).toFixed(2) + "%)";
            }
            // the first frame of a level whose right edge lies past position: its frames are disjoint and in order
            function firstEndingAfter(level, position) {
              let low = 0, high = level.length;
              while (low < high) {
                const middle = (low + high) >> 1, i = level[middle];
                if (leftOf[i] + widthOf[i] > position) high = middle; else low = middle + 1;
              }
              return low;
            }
            function draw() {
              const ratio = window.devicePixelRatio || 1, width = canvas.clientWidth, height = rows * ROW;
              if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
                canvas.style.height = height + "px";
                canvas.width = Math.round(width * ratio);
                canvas.height = Math.round(height * ratio);
              }
              context.setTransform(ratio, 0, 0, ratio, 0, 0);
              context.clearRect(0, 0, width, height);
              context.font = FONT;
              context.textBaseline = "middle";
              const charWidth = context.measureText("m").width;
              origin = leftOf[zoomed];
              scale = width / widthOf[zoomed];
              const end = origin + widthOf[zoomed];
              for (let depth = 0; depth < rows; depth++) {
                const level = levels[depth], y = (rows - 1 - depth) * ROW;
                for (let k = firstEndingAfter(level, origin); k < level.length && leftOf[level[k]] < end; k++) {
                  const i = level[k], x = Math.max(0, (leftOf[i] - origin) * scale);
                  const w = Math.min(width, (leftOf[i] + widthOf[i] - origin) * scale) - x;
                  if (w < NARROWEST) continue;
                  context.fillStyle = matches && matches[nameOf[i]] ? MATCH_COLOR : colorOf(nameOf[i]);
                  context.fillRect(x, y, Math.max(w - 1, NARROWEST), ROW - 1);
                  const fits = Math.floor((w - 6) / charWidth);
                  if (fits >= 3) {
                    const name = names[nameOf[i]];
                    context.fillStyle = "#000";
                    context.fillText(name.length <= fits ? name : name.slice(0, fits - 2) + "..", x + 3, y + ROW / 2);
                  }
                }
              }
            }
            function frameAt(x, y) {
              const depth = rows - 1 - Math.floor(y / ROW);
              if (depth < 0 || depth >= rows) return -1;
              const level = levels[depth], position = origin + x / scale, k = firstEndingAfter(level, position);
              if (k >= level.length || leftOf[level[k]] > position) return -1;
              const i = level[k], shown = Math.min(leftOf[i] + widthOf[i], origin + widthOf[zoomed]) - Math.max(leftOf[i], origin);
              return shown * scale < NARROWEST ? -1 : i;
            }
            function summary() { return "all: " + amount(widthOf[0]) + " in " + count.toLocaleString("en-US") + " frames"; }
            function show(text) { details.textContent = text; canvas.title = text; }
            function zoom(i) { zoomed = i; draw(); show(i === 0 ? summary() : "zoomed: " + describe(i)); }
            function search(text) {
              let pattern = null;
              try { pattern = text ? new RegExp(text) : null; } catch (e) { matched.textContent = "not a regular expression"; }
              if (!pattern) {
                if (!text) matched.textContent = "";
                matches = null;
                draw();
                return;
              }
              matches = new Uint8Array(names.length);
              for (let n = 0; n < names.length; n++) matches[n] = pattern.test(names[n]) ? 1 : 0;
              // a match inside a matching frame's subtree is counted as a frame, its weight once
              let frames = 0, weight = 0, coveredUntil = -1;
              for (let i = 0; i < count; i++) {
                if (!matches[nameOf[i]]) continue;
                frames++;
                if (leftOf[i] >= coveredUntil) {
                  weight += widthOf[i];
                  coveredUntil = leftOf[i] + widthOf[i];
                }
              }
              matched.textContent = frames.toLocaleString("en-US") + (frames === 1 ? " frame matches, " : " frames match, ")
                  + (100 * weight / widthOf[0]).toFixed(2) + "% of all";
              draw();
            }
            canvas.addEventListener("mousemove", (e) => {
              const i = frameAt(e.offsetX, e.offsetY);
              show(i < 0 ? summary() : describe(i));
            });
            canvas.addEventListener("mouseleave", () => show(summary()));
            canvas.addEventListener("click", (e) => {
              const i = frameAt(e.offsetX, e.offsetY);
              if (i >= 0) zoom(i);
            });
            document.getElementById("reset").addEventListener("click", () => zoom(0));
            document.getElementById("search").addEventListener("input", (e) => search(e.target.value));
            document.addEventListener("keydown", (e) => { if (e.key === "Escape") zoom(0); });
            window.addEventListener("resize", draw);
            document.getElementById("title").textContent = data.title;
            zoom(0);
            })();
            </script>
            </body>
            </html>
            """;
}
