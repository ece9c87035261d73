package dev.jvmticli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The CLI's Java packages in the layers docs/architecture.md draws: a package uses only packages
 * of its own layer or below it, and no packages form a cycle, as native/test/layers checks the
 * agent's C files. A new package fails here until it is given a layer.
 */
class PackageLayersTest {
    /** Top down, each layer the packages (under dev.jvmticli) it holds. */
    private static final List<List<String>> LAYERS = List.of(
            List.of("app"),                          // the entry point: assembles the commands and the shell
            List.of("shell"),                        // runs the commands over one connection
            List.of("cli"),                          // the picocli commands
            List.of("render"),                       // records to text, tables, JSON, flame graphs
            List.of("analysis"),                     // pure work over the records
            List.of("client"),                       // the agent's protocol: requests, answers, records
            List.of("attach"),                       // /proc, HotSpot's attach protocol
            List.of("failure", "demo", "payload", "files", "instrument")); // exit codes; the demo JVM; the agent library's jar; files made safely; class files rewritten

    private static final Pattern IMPORT = Pattern.compile("import (?:static )?dev\\.jvmticli\\.(\\w+)\\..*;");

    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.jvmticli");

    @Test
    void noPackageReachesUpPastItsLayer() {
        LayeredArchitecture layers = layeredArchitecture().consideringOnlyDependenciesInLayers();
        for (List<String> layer : LAYERS) {
            layers = layers.layer(name(layer)).definedBy(packages(layer));
        }
        layers = layers.whereLayer(name(LAYERS.get(0))).mayNotBeAccessedByAnyLayer();
        for (int i = 1; i < LAYERS.size(); i++) {
            layers = layers.whereLayer(name(LAYERS.get(i))).mayOnlyBeAccessedByLayers(
                    LAYERS.subList(0, i).stream().map(PackageLayersTest::name).toArray(String[]::new));
        }
        layers.check(CLASSES);
    }

    /**
     * The same over the sources' imports: a constant the compiler copies into its user (a
     * {@code static final} string or number) leaves no trace in the classes, only in the import.
     */
    @Test
    void noImportReachesUpPastItsLayer() throws IOException {
        Path sources = Path.of("src/main/java/dev/jvmticli");
        List<String> reaches = new ArrayList<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String from = sources.relativize(file).getName(0).toString();
                for (String line : Files.readAllLines(file)) {
                    Matcher imported = IMPORT.matcher(line);
                    if (imported.matches() && layer(imported.group(1)) < layer(from)) {
                        reaches.add(file + ": " + line);
                    }
                }
            }
        }
        assertEquals(List.of(), reaches);
    }

    @Test
    void everyPackageHasALayer() {
        classes().should().resideInAnyPackage(LAYERS.stream().flatMap(List::stream).map(p -> "dev.jvmticli." + p + "..").toArray(String[]::new))
                .check(CLASSES);
    }

    @Test
    void noPackageCycle() {
        slices().matching("dev.jvmticli.(*)..").should().beFreeOfCycles().check(CLASSES);
    }

    /** The layer's place, top down; a package without one fails. */
    private static int layer(String pkg) {
        for (int i = 0; i < LAYERS.size(); i++) {
            if (LAYERS.get(i).contains(pkg)) {
                return i;
            }
        }
        throw new AssertionError("dev.jvmticli." + pkg + " has no layer");
    }

    private static String name(List<String> layer) {
        return String.join("+", layer);
    }

    private static String[] packages(List<String> layer) {
        List<String> packages = new ArrayList<>();
        layer.forEach(p -> packages.add("dev.jvmticli." + p + ".."));
        return packages.toArray(String[]::new);
    }
}
