package dev.jvmticli.springshop;

import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class ShopController {
    private final OrderService orders;
    private final Inventory inventory;
    private final Leak leak;

    public ShopController(OrderService orders, Inventory inventory, Leak leak) {
        this.orders = orders;
        this.inventory = inventory;
        this.leak = leak;
    }

    @GetMapping("/fast")
    public Map<String, Object> fast() {
        // VirtualThread[#id,...] on a virtual thread (this compiles for Java 17, without Thread.isVirtual)
        return Map.of("status", "ok", "thread", Thread.currentThread().toString());
    }

    @GetMapping("/orders/count")
    public Map<String, Object> countOrders() throws Exception {
        return Map.of("orders", orders.countOrdersSlowly());
    }

    @GetMapping("/sync")
    public Map<String, Object> sync() throws InterruptedException {
        return Map.of("reserved", inventory.reserve());
    }

    @GetMapping("/leak")
    public Map<String, Object> leak() {
        return Map.of("kept", leak.keep());
    }
}
