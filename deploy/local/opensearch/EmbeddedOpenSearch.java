// Single-node OpenSearch started in-process from a Maven-resolved classpath.
//
// Why not org.opensearch.bootstrap.OpenSearch: it refuses to run as root and needs the
// distribution layout. Subclassing Node skips Bootstrap (root check, bootstrap checks,
// SecurityManager, jar hell) and lets us pass modules/plugins as *classpath plugins*, which
// also skips the plugin-descriptor version check (k-NN 2.19.1.0 on a 2.19.6 core).
//
// Usage: java -cp "classes:lib/*:knn/*" EmbeddedOpenSearch <home> [httpPort] [transportPort]
// Compiled by deploy/local/services.py (javac --release 17).
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.logging.LogConfigurator;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.plugins.Plugin;

public final class EmbeddedOpenSearch {
    // OpenSearch 2.x class names (3.x renamed most modules to *ModulePlugin).
    private static final String[] PLUGINS = {
        "org.opensearch.transport.Netty4Plugin",
        "org.opensearch.analysis.common.CommonAnalysisPlugin",
        "org.opensearch.painless.PainlessPlugin",
        "org.opensearch.index.reindex.ReindexPlugin",
        "org.opensearch.index.mapper.MapperExtrasPlugin",
        "org.opensearch.knn.plugin.KNNPlugin",
    };

    /** Node's plugin-list constructor is protected; expose it. */
    static final class ClasspathNode extends Node {
        ClasspathNode(Environment env, Collection<Class<? extends Plugin>> plugins) {
            super(env, plugins, true);
        }

        @Override
        protected void configureNodeAndClusterIdStateListener(ClusterService clusterService) {
            // only feeds node/cluster ids into log patterns; MockNode skips it too
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: EmbeddedOpenSearch <home> [httpPort] [transportPort]");
            System.exit(2);
        }
        Path home = Paths.get(args[0]).toAbsolutePath();
        String http = args.length > 1 ? args[1] : "9200";
        String transport = args.length > 2 ? args[2] : "9300";
        for (String d : new String[] {"config", "data", "logs", "plugins", "modules"}) {
            Files.createDirectories(home.resolve(d));
        }
        Settings settings = Settings.builder()
            .put("cluster.name", "epistream-it")
            .put("node.name", "it-node")
            .put("path.home", home.toString())
            .put("path.data", home.resolve("data").toString())
            .put("path.logs", home.resolve("logs").toString())
            .put("discovery.type", "single-node")
            .put("network.host", "127.0.0.1")
            .put("http.port", http)
            .put("transport.port", transport)
            .put("cluster.routing.allocation.disk.threshold_enabled", false)
            .build();
        Environment env = InternalSettingsPreparer.prepareEnvironment(
            settings, Collections.emptyMap(), home.resolve("config"), () -> "it-node");
        if (Files.exists(home.resolve("config").resolve("log4j2.properties"))) {
            LogConfigurator.registerErrorListener();
            LogConfigurator.setNodeName("it-node"); // else: "Error creating converter for node_name"
            LogConfigurator.configure(env);
        }
        List<Class<? extends Plugin>> plugins = new ArrayList<>();
        for (String name : PLUGINS) {
            try {
                plugins.add(Class.forName(name).asSubclass(Plugin.class));
            } catch (ClassNotFoundException e) {
                System.err.println("[launcher] skipped, not on classpath: " + name);
            }
        }
        final Node node = new ClasspathNode(env, plugins);
        final CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
                node.awaitClose(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                e.printStackTrace();
            } finally {
                closed.countDown();
            }
        }, "embedded-opensearch-shutdown"));
        try {
            node.start();
        } catch (Throwable t) {
            System.err.println("[launcher] node failed to start");
            t.printStackTrace();
            System.exit(1);
        }
        System.out.println("[launcher] OPENSEARCH_READY http://127.0.0.1:" + http + " plugins=" + plugins.size());
        System.out.flush();
        closed.await();
    }
}
