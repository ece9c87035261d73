package dev.jvmticli.render;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.jvmticli.client.AgentClient;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Weighted stacks as flame graphs: the collapsed-stack text format ({@code root;child;leaf weight},
 * one line per distinct stack, as flamegraph.pl, speedscope and others read it), and a
 * self-contained HTML page that draws the graph with a few lines of script: click a frame to zoom,
 * type a regular expression to highlight frames. The page loads nothing from the network.
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
        long value;
        final Map<String, Node> children = new LinkedHashMap<>();

        Node(String name) {
            this.name = Printable.text(name);
        }

        ObjectNode toJson() {
            ObjectNode json = AgentClient.mapper().createObjectNode();
            json.put("n", name);
            json.put("v", value);
            if (!children.isEmpty()) {
                ArrayNode c = json.putArray("c");
                children.values().stream()
                        .sorted((a, b) -> a.name.compareTo(b.name))
                        .forEach(child -> c.add(child.toJson()));
            }
            return json;
        }
    }

    /** The page: title and unit are shown as text; unit names the weight ("bytes", "ns"). */
    public static String html(String title, String unit, List<Sample> samples) {
        Node root = new Node("all");
        for (Sample sample : samples) {
            if (sample.weight() <= 0) {
                continue;
            }
            root.value += sample.weight();
            Node node = root;
            for (String frame : sample.frames()) {
                node = node.children.computeIfAbsent(frame, Node::new);
                node.value += sample.weight();
            }
        }
        ObjectNode document = AgentClient.mapper().createObjectNode();
        document.put("title", title);
        document.put("unit", unit);
        document.set("root", root.toJson());
        String data;
        try {
            data = AgentClient.mapper().writeValueAsString(document);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
        // inside <script>, "</script>" or "<!--" in a name must not end the element
        data = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026");
        return PAGE.replace("@DATA@", data).replace("@TITLE@", escapeHtml(title));
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
              #bar { margin: 6px 0; }
              #info { font-family: monospace; height: 1.5em; white-space: pre; overflow: hidden; }
              #graph { position: relative; width: 100%; }
              .f { position: absolute; height: 17px; line-height: 17px; overflow: hidden; white-space: nowrap;
                   box-sizing: border-box; border: 1px solid #fff; padding-left: 3px; cursor: pointer; font-size: 11px; }
              .f.hit { background: #d4f !important; color: #fff; }
            </style>
            </head>
            <body>
            <h3 id="title"></h3>
            <div id="bar"><input id="search" size="40" placeholder="highlight: regular expression">
              <button id="reset">reset zoom</button> <span id="matched"></span></div>
            <div id="info"></div>
            <div id="graph"></div>
            <script type="application/json" id="data">@DATA@</script>
            <script>
            "use strict";
            const data = JSON.parse(document.getElementById("data").textContent);
            const root = data.root, graph = document.getElementById("graph"), info = document.getElementById("info");
            const ROW = 18;
            document.getElementById("title").textContent = data.title;
            function link(node, parent, depth) {
              node.parent = parent; node.depth = depth; node.c = node.c || [];
              let deepest = depth;
              for (const child of node.c) deepest = Math.max(deepest, link(child, node, depth + 1));
              return deepest;
            }
            const maxDepth = link(root, null, 0);
            let zoomed = root, pattern = null;
            function amount(v) { return v.toLocaleString() + " " + data.unit; }
            function color(name) {
              let h = 0;
              for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
              return "hsl(" + (10 + h % 45) + ",80%," + (55 + h % 15) + "%)";
            }
            function frame(node, x, width) {
              const div = document.createElement("div");
              div.className = "f" + (pattern && pattern.test(node.n) ? " hit" : "");
              div.style.left = x + "px";
              div.style.width = width + "px";
              div.style.top = (maxDepth - node.depth) * ROW + "px";
              div.style.background = color(node.n);
              div.textContent = node.n;
              const share = (100 * node.v / root.v).toFixed(2);
              div.title = node.n + "\\n" + amount(node.v) + " (" + share + "%)";
              div.onmouseover = () => { info.textContent = node.n + "  " + amount(node.v) + " (" + share + "%)"; };
              div.onclick = () => { zoomed = node; draw(); };
              graph.appendChild(div);
            }
            function place(node, x, width) {
              if (width < 0.5) return;
              frame(node, x, width);
              let left = x;
              for (const child of node.c) {
                const w = width * child.v / node.v;
                place(child, left, w);
                left += w;
              }
            }
            function draw() {
              graph.innerHTML = "";
              graph.style.height = (maxDepth + 1) * ROW + "px";
              const width = graph.clientWidth;
              for (let a = zoomed.parent; a; a = a.parent) frame(a, 0, width);
              place(zoomed, 0, width);
            }
            function matched(node) {
              if (pattern.test(node.n)) return node.v;
              return node.c.reduce((sum, child) => sum + matched(child), 0);
            }
            document.getElementById("reset").onclick = () => { zoomed = root; draw(); };
            document.getElementById("search").oninput = (e) => {
              try { pattern = e.target.value ? new RegExp(e.target.value) : null; } catch (err) { pattern = null; }
              document.getElementById("matched").textContent =
                pattern ? "matched " + (100 * matched(root) / root.v).toFixed(2) + "%" : "";
              draw();
            };
            window.onresize = draw;
            info.textContent = "all: " + amount(root.v);
            draw();
            </script>
            </body>
            </html>
            """;
}
