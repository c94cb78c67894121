package dev.specwatch.schedule;

import dev.specwatch.server.RecipeHistory;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Keeps a slow datasource from holding the web server's workers: the recipe page's history ({@link
 * RecipeHistoryCache}: the speed-up, the advice and the charts, several range queries) is loaded on
 * two threads of its own, and a page waits for it at most {@link #PAGE_WAIT}. Past that the page
 * answers at once saying the history is still loading; the load goes on and fills the cache for the
 * next view. One load per recipe and span at a time, however many views ask. The threads exist only
 * while loads run (they end after a minute idle).
 */
final class RecipeHistoryLoader {
  /** How long a page waits for its history before it answers without. */
  static final Duration PAGE_WAIT = Duration.ofSeconds(2);

  private final RecipeHistoryCache cache;
  private final Map<String, CompletableFuture<RecipeHistory>> loads = new HashMap<>();
  private final ThreadPoolExecutor threads;

  RecipeHistoryLoader(RecipeHistoryCache cache) {
    this.cache = cache;
    AtomicInteger n = new AtomicInteger();
    this.threads =
        new ThreadPoolExecutor(
            2,
            2,
            1,
            TimeUnit.MINUTES,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "specwatch-recipe-history-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    threads.allowCoreThreadTimeOut(true);
  }

  RecipeHistory get(String recipe, Duration span, Daemon.Wiring wiring, Instant now) {
    String key = recipe + "\u0000" + span;
    CompletableFuture<RecipeHistory> load;
    synchronized (loads) {
      load = loads.get(key);
      if (load == null || load.isDone()) {
        load = CompletableFuture.supplyAsync(() -> cache.get(recipe, span, wiring, now), threads);
        loads.put(key, load);
      }
    }
    try {
      return load.get(PAGE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      return RecipeHistory.LOADING;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return RecipeHistory.LOADING;
    } catch (ExecutionException e) {
      throw new IllegalStateException("loading the history of " + recipe + " failed", e.getCause());
    }
  }
}
