package dev.jvmticli.springshop;

import java.util.ArrayList;
import java.util.List;
import org.springframework.stereotype.Component;

/** Keeps 1 KiB for every /leak request, for good. */
@Component
public class Leak {
    private final List<byte[]> kept = new ArrayList<>();

    public synchronized int keep() {
        kept.add(new byte[1024]);
        return kept.size();
    }
}
