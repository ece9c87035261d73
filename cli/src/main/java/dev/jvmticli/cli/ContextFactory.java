package dev.jvmticli.cli;

import java.lang.reflect.Constructor;
import picocli.CommandLine;

/** Builds command objects, handing the run's {@link CliContext} to those that take one. */
final class ContextFactory implements CommandLine.IFactory {
    private final CliContext context;
    private final CommandLine.IFactory fallback = CommandLine.defaultFactory();

    ContextFactory(CliContext context) {
        this.context = context;
    }

    @Override
    public <K> K create(Class<K> type) throws Exception {
        for (Constructor<?> constructor : type.getDeclaredConstructors()) {
            Class<?>[] parameters = constructor.getParameterTypes();
            if (parameters.length == 1 && parameters[0].isAssignableFrom(context.getClass())) {
                constructor.setAccessible(true);
                return type.cast(constructor.newInstance(context));
            }
        }
        return fallback.create(type);
    }
}
