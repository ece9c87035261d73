package dev.jvmticli.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class DurationConverterTest {
    private final DurationConverter converter = new DurationConverter();

    @Test
    void acceptsTheUsualUnits() {
        assertEquals(Duration.ofMillis(500), converter.convert("500ms"));
        assertEquals(Duration.ofSeconds(10), converter.convert("10s"));
        assertEquals(Duration.ofMillis(1500), converter.convert("1.5s"));
        assertEquals(Duration.ofMinutes(2), converter.convert("2m"));
        assertEquals(Duration.ofHours(1), converter.convert("1h"));
        assertEquals(Duration.ofSeconds(3), converter.convert("3"));
    }

    @Test
    void rejectsNonsenseAndOutOfRange() {
        assertThrows(TypeConversionException.class, () -> converter.convert("soon"));
        assertThrows(TypeConversionException.class, () -> converter.convert("-1s"));
        assertThrows(TypeConversionException.class, () -> converter.convert("0"));
        assertThrows(TypeConversionException.class, () -> converter.convert("25h"));
    }
}
