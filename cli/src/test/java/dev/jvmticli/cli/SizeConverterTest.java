package dev.jvmticli.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class SizeConverterTest {
    private final SizeConverter converter = new SizeConverter();

    @Test
    void sizesInBytesAndPowersOf1024() {
        assertEquals(4096L, converter.convert("4096"));
        assertEquals(512L * 1024, converter.convert("512k"));
        assertEquals(1L << 20, converter.convert("1M"));
        assertEquals(2L << 20, converter.convert("2MiB"));
        assertEquals(1L << 30, converter.convert("1g"));
    }

    @Test
    void nonsenseAndOutOfRangeAreRefused() {
        assertThrows(TypeConversionException.class, () -> converter.convert("lots"));
        assertThrows(TypeConversionException.class, () -> converter.convert("0"));
        assertThrows(TypeConversionException.class, () -> converter.convert("2g"));
        assertThrows(TypeConversionException.class, () -> converter.convert("-1k"));
    }
}
