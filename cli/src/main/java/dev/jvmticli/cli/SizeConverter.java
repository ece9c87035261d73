package dev.jvmticli.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Parses byte sizes: {@code 4096}, {@code 512k}, {@code 1m}, {@code 2MiB}; k, m and g are powers of 1024. */
public final class SizeConverter implements ITypeConverter<Long> {
    private static final Pattern FORMAT = Pattern.compile("(\\d{1,12})\\s*([kmg]?)(i?b)?");

    @Override
    public Long convert(String value) {
        Matcher m = FORMAT.matcher(value.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new TypeConversionException("'" + value + "' is not a size (try 4096, 512k, 1m)");
        }
        long bytes = Long.parseLong(m.group(1)) << switch (m.group(2)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            default -> 0;
        };
        if (bytes < 1 || bytes > 1L << 30) {
            throw new TypeConversionException("'" + value + "' is out of range (1 byte to 1g)");
        }
        return bytes;
    }
}
