package dev.jvmticli.cli;

import dev.jvmticli.analysis.Profile;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.ThreadEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * {@code profile --thread ID|NAME}: which of the profile's stacks to keep. A Java thread id is
 * turned into its OS thread id (the engine names threads by that) when the profile starts; a name
 * or glob matches the thread's name in the report.
 */
final class ProfileThreads {
    private final List<String> selectors;
    private final Map<String, Long> nids;
    private final List<Pattern> names;

    private ProfileThreads(List<String> selectors, Map<String, Long> nids, List<Pattern> names) {
        this.selectors = selectors;
        this.nids = nids;
        this.names = names;
    }

    static ProfileThreads resolve(AgentClient client, List<String> selectors) {
        if (selectors == null || selectors.isEmpty()) {
            return new ProfileThreads(List.of(), Map.of(), List.of());
        }
        List<ThreadEntry> live = selectors.stream().anyMatch(ProfileThreads::isId) ? client.threads().threads() : List.of();
        Map<String, Long> nids = live.stream().filter(t -> t.nid() > 0 && selectors.contains(Long.toString(t.id())))
                .collect(Collectors.toMap(t -> Long.toString(t.id()), ThreadEntry::nid, (a, b) -> a));
        return new ProfileThreads(selectors, nids, selectors.stream().map(Glob::toPattern).toList());
    }

    private static boolean isId(String selector) {
        return !selector.isEmpty() && selector.chars().allMatch(Character::isDigit);
    }

    boolean matches(Profile.Stack stack) {
        return selectors.isEmpty() || nids.containsValue(stack.tid())
                || (stack.thread() != null && names.stream().anyMatch(p -> p.matcher(stack.thread()).matches()));
    }

    /** The selectors no stack of the profile matched. */
    List<String> unmatched(Profile profile) {
        List<String> none = new ArrayList<>();
        for (int i = 0; i < selectors.size(); i++) {
            Long nid = nids.get(selectors.get(i));
            Pattern name = names.get(i);
            boolean any = profile.stacks().stream().anyMatch(s -> (nid != null && nid == s.tid())
                    || (s.thread() != null && name.matcher(s.thread()).matches()));
            if (!any) {
                none.add(selectors.get(i));
            }
        }
        return none;
    }
}
